// `npm run dev -- <args>`: runs the CLI from src/ through tsx, without a build
// (bin/agctl.js runs the built dist/).
import { main, processIO } from '../src/cli/main.js';

process.exitCode = await main(process.argv, { io: processIO(), env: process.env });
