import { exitQuietlyWhenOutputCloses } from './closed-output.js';
import { main } from './main.js';

exitQuietlyWhenOutputCloses();
process.exitCode = await main(process.argv);
