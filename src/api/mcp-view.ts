// What the client checks of an MCP server view, whose full shape is the
// schema in mcp-schema.ts: the members the CLI reads as lists or maps, as a
// table of members (src/api/shape.ts) typed against that schema's view, so
// that an answer is checked without loading the schema library, and a member
// renamed or retyped in the schema fails the typecheck here.
import type { McpServerView } from './mcp-schema.js';
import { shape, shapeOf } from './shape.js';

const checked = shapeOf<McpServerView>();

/** The view's members read as lists or maps; other members are shown as they are. */
export const MCP_VIEW_CHECKED = checked({
  oauth2Scopes: 'array',
  oauth2ScopesSupported: 'array',
  oauth2CodeChallengeMethodsSupported: 'array',
  configFieldValues: 'object',
  oauth2ExtraAuthorizeParams: 'object',
  oauth2ExtraTokenParams: 'object',
});

/** A view of a list page: it must also name its server. */
export const MCP_LISTED_VIEW = checked({ ...MCP_VIEW_CHECKED, connectorId: { kind: 'string', required: true } });

/** `{mcpServer}`, the answer of a Get and of a credentials update (the view is checked as MCP_VIEW_CHECKED). */
export const MCP_SERVER_ANSWER = shape({ mcpServer: { kind: 'object', of: MCP_VIEW_CHECKED } });
