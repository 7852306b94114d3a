"""The REFERENCE asynchronous infer request: the TEMPLATE plugin's three-stage pipeline.

1. on the compiled model's task executor (its streams): preprocess, then start the pipeline;
2. on the plugin's wait executor: wait for the device (the "device" stage);
3. on the task executor again: postprocess.

With REFERENCE_PROCESS_STREAMS the stream thread only waits for a worker process, so the three
stages run as one task on it (two hand-offs less per run). The completion callback runs on the
compiled model's callback executor. While one request
waits for the device, another can use the host stages of the same stream, so ``n`` streams
keep ``n`` requests going (OPTIMAL_NUMBER_OF_INFER_REQUESTS).
"""

from __future__ import annotations

from collections.abc import Callable

from ovconform.api import STAGES, AsyncInferRequest, ITaskExecutor, SyncInferRequest

__all__ = ["ReferenceAsyncInferRequest"]

Task = Callable[[], None]


class ReferenceAsyncInferRequest(AsyncInferRequest):
    """Schedules the sync request's stages on the task, wait and callback executors.

    :param sync_request: the request whose stages run.
    :param task_executor: the compiled model's streams executor (host stages).
    :param wait_executor: the plugin's executor for the device stage.
    :param callback_executor: where the completion callback runs.
    """

    def __init__(self, sync_request: SyncInferRequest, task_executor: ITaskExecutor, wait_executor: ITaskExecutor,
                 callback_executor: ITaskExecutor | None = None) -> None:
        self._wait_executor = wait_executor
        super().__init__(sync_request, task_executor, callback_executor)

    @property
    def wait_executor(self) -> ITaskExecutor:
        return self._wait_executor

    def _create_pipeline(self, task_executor: ITaskExecutor) -> list[tuple[ITaskExecutor, Task]]:
        sync = self._sync
        stage = dict(sync.stages())
        preprocess, start_pipeline, wait_pipeline, postprocess = STAGES

        def host_start() -> None:
            sync.run_stage(preprocess, stage[preprocess])
            sync.run_stage(start_pipeline, stage[start_pipeline])

        def device_wait() -> None:
            sync.run_stage(wait_pipeline, stage[wait_pipeline])

        def host_finish() -> None:
            sync.run_stage(postprocess, stage[postprocess])

        if getattr(sync, "runs_in_worker", False):
            # the stream thread only waits for its worker: one task, no hand-offs between stages
            def whole_run() -> None:
                host_start()
                device_wait()
                host_finish()

            return [(task_executor, whole_run)]
        return [(task_executor, host_start), (self._wait_executor, device_wait), (task_executor, host_finish)]
