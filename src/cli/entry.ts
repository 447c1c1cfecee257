import { main } from './main.js';

process.exitCode = await main(process.argv);
