// The entry point of the single executable (`npm run package`): the whole CLI, daemon and agent
// bundled as the executable's main script. It is CommonJS, which Node 20 requires of that script,
// so the exit code is set from a promise instead of a top-level await.
import { loadNativeAddon } from '../lib/native-addons.js';
import { exitQuietlyWhenOutputCloses } from './closed-output.js';
import { KEYCHAIN_CHILD_ENV, runKeychainChild } from './keyring-binding.js';
import { main } from './main.js';

// The executable started as a keychain child (see keychainChildLaunch): one request, no CLI.
if (process.env[KEYCHAIN_CHILD_ENV] === '1') {
  runKeychainChild(loadNativeAddon);
} else {
  exitQuietlyWhenOutputCloses();
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
