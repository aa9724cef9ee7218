// The client's checks of the MCP server and task answers, derived from the
// member tables in src/api (mcp-view.ts, tasks.ts): each member a table
// declares is refused with another type, with the same words as before.
import { describe, expect, it } from 'vitest';
import { MCP_LISTED_VIEW, MCP_VIEW_CHECKED } from '../../../src/api/mcp-view.js';
import type { ApiClient } from '../../../src/client/api.js';
import { getMcpServer, listAllMcpServers } from '../../../src/client/mcp.js';
import { approveWithStepUp, getTask, searchTasks } from '../../../src/client/tasks.js';

/** An API client whose every answer is `body`, checked as the real client checks it (a problem is thrown as it is). */
function answering(body: Record<string, unknown>): ApiClient {
  const call = async (_method: string, _path: string, opts: { check?: (b: Record<string, unknown>) => string | undefined } = {}) => {
    const problem = opts.check?.(body);
    if (problem) throw new Error(problem);
    return body;
  };
  return { call } as unknown as ApiClient;
}

const wrong = (kind: string) => (kind === 'array' ? { a: 1 } : ['a']);

describe('MCP server views', () => {
  const members = Object.entries(MCP_VIEW_CHECKED) as [string, string][];

  it('checks every member the table declares, in a Get answer and in a list page', async () => {
    expect(members.length).toBeGreaterThan(0);
    for (const [name, kind] of members) {
      const expected = kind === 'array' ? 'an array' : 'an object';
      const got = wrong(kind);
      const what = Array.isArray(got) ? 'an array' : 'an object';
      await expect(getMcpServer(answering({ mcpServer: { connectorId: 'c', [name]: got } }), 'a', 'c')).rejects.toThrow(
        `"mcpServer.${name}" is ${what}, expected ${expected}`,
      );
      await expect(listAllMcpServers(answering({ list: [{ connectorId: 'c', [name]: got }] }), 'a')).rejects.toThrow(
        `"list[0]" has "${name}" as ${what}, expected ${expected}`,
      );
    }
  });

  it('accepts members left out or null, and a null view from a Get; a listed view must name its server', async () => {
    const nulls = Object.fromEntries(members.map(([name]) => [name, null]));
    await expect(getMcpServer(answering({ mcpServer: nulls }), 'a', 'c')).resolves.toEqual({ mcpServer: nulls });
    await expect(getMcpServer(answering({ mcpServer: null }), 'a', 'c')).resolves.toEqual({ mcpServer: null });
    await expect(getMcpServer(answering({ mcpServer: 'x' }), 'a', 'c')).rejects.toThrow(
      '"mcpServer" is a string, expected an MCP server view',
    );
    expect(MCP_LISTED_VIEW.connectorId).toEqual({ kind: 'string', required: true });
    await expect(listAllMcpServers(answering({ list: [{ connectorId: '' }] }), 'a')).rejects.toThrow('"list[0]" has no "connectorId"');
    await expect(listAllMcpServers(answering({ list: [7] }), 'a')).rejects.toThrow('"list[0]" is a number, expected an MCP server view');
  });
});

const approve = { policyStepId: 's', stepUpTransactionId: '', comment: '', expandMask: null };

describe('task answers', () => {
  it("a search page: each view's task, when there is one, an object with a string ID", async () => {
    await expect(searchTasks(answering({ list: [{}, { task: null }, { task: { id: null } }] }), {})).resolves.toBeDefined();
    await expect(searchTasks(answering({ list: [{ task: 'x' }] }), {})).rejects.toThrow(
      '"list[0]" has "task" as a string, expected an object',
    );
    await expect(searchTasks(answering({ list: [{ task: { id: 5 } }] }), {})).rejects.toThrow(
      '"list[0]" has "task.id" as a number, expected a string',
    );
    await expect(searchTasks(answering({ list: [null] }), {})).rejects.toThrow('"list[0]" is null, expected a task view');
  });

  it("a task's Get: its view and the view's task must be there; `expanded` may be left out, not of another type", async () => {
    await expect(getTask(answering({ taskView: { task: {} } }), 't')).resolves.toBeDefined();
    await expect(getTask(answering({}), 't')).rejects.toThrow('"taskView" is missing, expected an object');
    await expect(getTask(answering({ taskView: { task: null } }), 't')).rejects.toThrow('"taskView.task" is null, expected an object');
    await expect(getTask(answering({ taskView: { task: {} }, expanded: {} }), 't')).rejects.toThrow(
      '"expanded" is an object, expected an array',
    );
  });

  it('an approval: its IDs strings; a redirect may leave the view out', async () => {
    await expect(approveWithStepUp(answering({ redirectUrl: 'https://x.example/' }), 't', approve)).resolves.toMatchObject({
      redirectUrl: 'https://x.example/',
    });
    await expect(approveWithStepUp(answering({ redirectUrl: 1 }), 't', approve)).rejects.toThrow(
      '"redirectUrl" is a number, expected a string',
    );
    await expect(approveWithStepUp(answering({ ticketActionId: true, taskView: { task: {} } }), 't', approve)).rejects.toThrow(
      '"ticketActionId" is a boolean, expected a string',
    );
    await expect(approveWithStepUp(answering({ taskActionId: {}, taskView: { task: {} } }), 't', approve)).rejects.toThrow(
      '"taskActionId" is an object, expected a string',
    );
    await expect(approveWithStepUp(answering({ ticketActionId: 'a' }), 't', approve)).rejects.toThrow(
      '"taskView" is missing, expected an object',
    );
  });
});
