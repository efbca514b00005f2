import { binBuild } from 'tenant-messaging-bin-kit/tsup';
import { defineConfig } from 'tsup';

/** The `tenant-messaging` bin: its commands in chunks loaded when run (commander and the rest external). */
export default defineConfig(binBuild());
