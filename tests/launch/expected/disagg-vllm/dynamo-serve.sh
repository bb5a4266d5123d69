#!/bin/sh
# The point on Dynamo: `sh dynamo-serve.sh frontend` once, then one worker per engine, for Dynamo 0.5, vLLM 0.10 workers. Written by aifsim launch for P 1x tp2 D 2x tp4 fp8 dynamo-vllm c64.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# Needs etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER), as every Dynamo deployment does.
# prefill: 1 engine of 2 GPUs
# decode: 2 engines of 4 GPUs
case "${1:-}" in
frontend)
  exec python3 -m dynamo.frontend --http-port "${PORT:-8000}" --router-mode kv ;;
prefill)
  exec python3 -m dynamo.vllm --model "$MODEL" \
    --tensor-parallel-size 2 \
    --max-num-seqs 8 \
    --max-num-batched-tokens 4096 \
    --enable-chunked-prefill \
    --max-model-len 2560 \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization 0.90 \
    --compilation-config '{"cudagraph_capture_sizes":[1,2,4,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248,256,272,288,304,320,336,352,368,384,400,416,432,448,464,480,496,512]}' \
    --is-prefill-worker ;;
decode)
  exec python3 -m dynamo.vllm --model "$MODEL" \
    --tensor-parallel-size 4 \
    --max-num-seqs 96 \
    --max-num-batched-tokens 8192 \
    --enable-chunked-prefill \
    --max-model-len 2560 \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization 0.90 \
    --compilation-config '{"cudagraph_capture_sizes":[1,2,4,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,144,152,160,168,176,184,192,200,208,216,224,232,240,248,256,272,288,304,320,336,352,368,384,400,416,432,448,464,480,496,512]}' ;;
*)
  echo "usage: $0 frontend|prefill|decode" >&2; exit 2 ;;
esac
