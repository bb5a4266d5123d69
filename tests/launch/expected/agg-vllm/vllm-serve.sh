#!/bin/sh
# One engine of the point, for vLLM 0.10. Written by aifsim launch for agg 2x tp4 fp8 vllm c64.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# the point runs 2 such engines: start one per 4 GPUs (ports 8000 up) and spread
# requests over them (round robin), or use the Dynamo launch of the same point
PORT=${PORT:-8000}
exec vllm serve "$MODEL" --host 0.0.0.0 --port "$PORT" \
    --tensor-parallel-size 4 \
    --max-num-seqs 128 \
    --max-num-batched-tokens 2560 \
    --no-enable-chunked-prefill \
    --max-model-len 2560 \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization 0.90 \
    --enforce-eager
