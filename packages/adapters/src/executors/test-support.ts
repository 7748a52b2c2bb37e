/** What the executor tests share: the error a call that must fail ended with. */

/** The error `promise` rejected with; a promise that resolves fails the test instead. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}
