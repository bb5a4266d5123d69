#!/bin/sh
# The point on Dynamo: `sh dynamo-serve.sh frontend` once, then one worker per engine, for Dynamo 0.5, TensorRT-LLM 1.0 (PyTorch backend) workers. Written by aifsim launch for P 1x tp2 D 2x tp4 fp8 dynamo-trt c128.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# Needs etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER), as every Dynamo deployment does.
# prefill: 1 engine of 2 GPUs
# decode: 2 engines of 4 GPUs
case "${1:-}" in
frontend)
  exec python3 -m dynamo.frontend --http-port "${PORT:-8000}" --router-mode round-robin ;;
prefill)
  exec python3 -m dynamo.trtllm --model-path "$MODEL" \
    --extra-engine-args prefill.yaml \
    --disaggregation-mode prefill \
    --disaggregation-strategy decode_first ;;
decode)
  exec python3 -m dynamo.trtllm --model-path "$MODEL" \
    --extra-engine-args decode.yaml \
    --disaggregation-mode decode \
    --disaggregation-strategy decode_first ;;
*)
  echo "usage: $0 frontend|prefill|decode" >&2; exit 2 ;;
esac
