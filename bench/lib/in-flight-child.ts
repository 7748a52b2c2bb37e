/** Row 8 of bench/engine in a fresh process (see runsInFlight): prints its rows as JSON. */
import { runsInFlightHere } from '../scenarios/runner.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node --expose-gc bench/lib/in-flight-child.ts <temp dir>');
process.stdout.write(JSON.stringify(await runsInFlightHere(dir)));
