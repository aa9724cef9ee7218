// The modules of the embedded server, in migration order.
import type { ServerModule } from './module.js';
import { authModule } from './routes/auth.js';
import { appsModule } from './routes/apps.js';
import { rulesModule } from './routes/rules.js';
import { webhooksModule } from './routes/webhooks.js';
import { tasksModule } from './routes/tasks.js';
import { mcpModule } from './routes/mcp.js';

export const MODULES: ServerModule[] = [authModule, appsModule, rulesModule, tasksModule, webhooksModule, mcpModule];
