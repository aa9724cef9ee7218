// Task endpoints (service-api.md §4.4, and the task read the CLI uses to find the current step).
import type { ApproveWithStepUpRequest, ApproveWithStepUpResponse, GetTaskResponse } from '../api/tasks.js';
import type { ApiClient } from './api.js';
import { pathSegment } from './paths.js';

const taskPath = (taskId: string) => `/api/v1/tasks/${pathSegment(taskId, 'task ID')}`;

/** GET /api/v1/tasks/{task_id}; `expand` lists expand-mask paths (`*` for all). */
export function getTask(api: ApiClient, taskId: string, expand: readonly string[] = []): Promise<GetTaskResponse> {
  return api.call<GetTaskResponse>('GET', taskPath(taskId), { query: { expand: expand.length ? expand.join(',') : undefined } });
}

/** POST /api/v1/tasks/{task_id}/action/approve-with-step-up. */
export function approveWithStepUp(api: ApiClient, taskId: string, req: ApproveWithStepUpRequest): Promise<ApproveWithStepUpResponse> {
  return api.call<ApproveWithStepUpResponse>('POST', `${taskPath(taskId)}/action/approve-with-step-up`, { body: req });
}
