// Task endpoints (service-api.md §4.4, and the task read the CLI uses to find the current step).
import {
  APPROVE_ANSWER_CHECKED,
  TASK_ANSWER_CHECKED,
  TASK_STATES,
  TASK_VIEW_CHECKED,
  type ApproveWithStepUpRequest,
  type ApproveWithStepUpResponse,
  type GetTaskResponse,
  type TaskSearchRequest,
  type TaskSearchResponse,
  type TaskView,
} from '../api/tasks.js';
import { answerProblem, itemProblem } from '../api/shape.js';
import type { ApiClient } from './api.js';
import { isJsonObject } from '../lib/json.js';
import { checkPage, listAll, type ListAllOptions } from './paginate.js';
import { checkAnswerId } from './answer-id.js';
import { pathSegment } from './paths.js';

const taskPath = (taskId: string) => `/api/v1/tasks/${pathSegment(taskId, 'task ID')}`;

const taskViewProblem = (v: unknown): string | undefined => itemProblem(TASK_VIEW_CHECKED, v, 'a task view');

/** The task ID of a view as received ('' when the view has none). */
export const viewTaskId = (v: TaskView): string => (isJsonObject(v.task) && typeof v.task.id === 'string' ? v.task.id : '');

/** The `id` of the task an answer's `taskView` holds, as received (undefined when the answer holds no task). */
const answeredTaskId = (res: { taskView?: unknown }): unknown =>
  isJsonObject(res.taskView) && isJsonObject(res.taskView.task) ? res.taskView.task.id : undefined;

const checkTaskAnswer = (b: Record<string, unknown>): string | undefined => answerProblem(TASK_ANSWER_CHECKED, b);

function checkApproveAnswer(b: Record<string, unknown>): string | undefined {
  const bad = answerProblem(APPROVE_ANSWER_CHECKED, b);
  if (bad) return bad;
  // A redirect approves nothing: the service may leave the (unchanged) task view out or null (the contract allows both).
  if (b.redirectUrl && (b.taskView === undefined || b.taskView === null)) return undefined;
  return checkTaskAnswer(b);
}

/**
 * A task, with the related objects `expand` names (expand-mask paths, `*` for
 * all). The task's Get (GET /api/v1/tasks/{id}) takes no expand mask: the
 * contract declares no query parameter for it. Related objects come from the
 * search, asked for this one task (`refs: [{id}]`) with an `expandMask`
 * (service-notes.md §2); when its answer does not hold the task (a server
 * that ignores `refs`, or a task the search does not list), the task is read
 * with its Get, without related objects.
 */
export async function getTask(api: ApiClient, taskId: string, expand: readonly string[] = []): Promise<GetTaskResponse> {
  const path = taskPath(taskId);
  if (expand.length) {
    const page = await searchTasks(api, { refs: [{ id: taskId }], expandMask: { paths: [...expand] } });
    const view = (page.list ?? []).find((v) => viewTaskId(v) === taskId);
    if (view) return { taskView: view, expanded: Array.isArray(page.expanded) ? page.expanded : [] };
  }
  const res = await api.call<GetTaskResponse>('GET', path, { check: checkTaskAnswer });
  // The task's `id` may be null or left out (the contract marks it nullable): the ID asked for stands in for it.
  checkAnswerId('task', taskId, answeredTaskId(res), { missingOk: true });
  return res;
}

/**
 * POST /api/v1/tasks/{task_id}/action/approve-with-step-up. The contract lists
 * `stepUpTransactionId` as required: the first call sends it empty ("unset"
 * in protobuf JSON, service-notes.md §2), and the server then issues a
 * transaction and answers `redirectUrl`. The approve action's ID is read from
 * `ticketActionId`, or `taskActionId` from servers that predate that name.
 */
export async function approveWithStepUp(api: ApiClient, taskId: string, req: ApproveWithStepUpRequest): Promise<ApproveWithStepUpResponse> {
  const body = { ...req, stepUpTransactionId: req.stepUpTransactionId ?? '' };
  const res = await api.call<ApproveWithStepUpResponse>('POST', `${taskPath(taskId)}/action/approve-with-step-up`, {
    body,
    check: checkApproveAnswer,
  });
  // The task view shown as the result must be of the task approved.
  checkAnswerId('task', taskId, answeredTaskId(res), { missingOk: true, request: 'the approval of' });
  return { ...res, redirectUrl: res.redirectUrl ?? '', ticketActionId: res.ticketActionId || res.taskActionId || '' };
}

/** POST /api/v1/search/tasks: one page (service-notes.md §2; the page token travels in the body). */
export function searchTasks(api: ApiClient, req: TaskSearchRequest): Promise<TaskSearchResponse> {
  // A search only reads, so repeating it is safe.
  return api.call<TaskSearchResponse>('POST', '/api/v1/search/tasks', {
    body: req,
    idempotent: true,
    check: checkPage(taskViewProblem, 'an array of task views'),
  });
}

/**
 * Every task view the search finds (or the first `limit`), in the server's
 * order, as the server sent it; `keep` filters them further. The search's
 * own paging members are set here.
 */
export function listAllTasks(
  api: ApiClient,
  req: Omit<TaskSearchRequest, 'pageSize' | 'pageToken'>,
  opts: Pick<ListAllOptions<TaskView>, 'limit' | 'pageSize' | 'keep' | 'maxPages'> = {},
): Promise<TaskView[]> {
  // A view without a task ID is kept as it is, under a key of its own (it cannot be told apart from another).
  const anonymous = new WeakMap<TaskView, string>();
  let n = 0;
  const idOf = (v: TaskView): string => {
    const id = viewTaskId(v);
    if (id) return id;
    if (!anonymous.has(v)) anonymous.set(v, `\u0000no-id-${n++}`);
    return anonymous.get(v)!;
  };
  return listAll(
    (page) =>
      searchTasks(api, {
        ...req,
        ...(page.pageSize ? { pageSize: page.pageSize } : {}),
        ...(page.pageToken ? { pageToken: page.pageToken } : {}),
      }),
    {
      ...opts,
      what: 'tasks',
      idOf,
    },
  );
}

/** Pages of the search read at most when looking a task up by its number. */
const NUMBER_SEARCH_MAX_PAGES = 5;

/**
 * The task, open or closed, whose numeric ID (shown as `#1041`) is `n`, if
 * the search finds it. The search has no member for the numeric ID
 * (service-notes.md §2 lists none), so it is asked with `query` and the
 * numeric ID is matched here, over at most NUMBER_SEARCH_MAX_PAGES pages.
 */
export async function findTaskByNumber(api: ApiClient, n: string): Promise<TaskView | undefined> {
  const [found] = await listAllTasks(
    api,
    { query: n, taskStates: [TASK_STATES.open, TASK_STATES.closed] },
    {
      limit: 1,
      pageSize: 100,
      maxPages: NUMBER_SEARCH_MAX_PAGES,
      keep: (v) => viewTaskId(v) !== '' && String(v.task.numericId ?? '') === n,
    },
  );
  return found;
}
