// The entry point of the single executable (`npm run package`): the whole CLI, daemon and agent
// bundled as the executable's main script. It is CommonJS, which Node 20 requires of that script,
// so the exit code is set from a promise instead of a top-level await.
import { main } from './main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
