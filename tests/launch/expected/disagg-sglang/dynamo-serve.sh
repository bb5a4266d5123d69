#!/bin/sh
# The point on Dynamo: `sh dynamo-serve.sh frontend` once, then one worker per engine, for Dynamo 0.5, SGLang 0.5 workers. Written by aifsim launch for P 2x tp4 ep4 dp D 1x tp16 ep16 dp fp8 dynamo-sglang c512.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# block-scaled FP8 in FlashInfer's GEMMs, DeepGEMM off, as the point was simulated (and as
# SGLang's Blackwell launches run it: docs/model.md); the experts in its default trtllm-gen MoE
export SGLANG_ENABLE_JIT_DEEPGEMM=false SGL_ENABLE_JIT_DEEPGEMM=false SGLANG_ENABLE_FLASHINFER_GEMM=true
# Needs etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER), as every Dynamo deployment does.
# prefill: 2 engines of 4 GPUs
# decode: 1 engine of 16 GPUs (spanning nodes)
# one engine spans 4 nodes: run this on each, with NODE_RANK and HEAD_ADDR set
case "${1:-}" in
frontend)
  exec python3 -m dynamo.frontend --http-port "${PORT:-8000}" --router-mode kv ;;
prefill)
  exec python3 -m dynamo.sglang --model-path "$MODEL" \
    --tp-size 4 \
    --ep-size 4 \
    --enable-dp-attention \
    --dp-size 4 \
    --max-running-requests 128 \
    --chunked-prefill-size 16384 \
    --context-length 9216 \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.96 \
    --cuda-graph-bs 1 2 4 8 12 16 24 32 \
    --disaggregation-mode prefill \
    --disaggregation-transfer-backend nixl ;;
decode)
  exec python3 -m dynamo.sglang --model-path "$MODEL" \
    --tp-size 16 \
    --ep-size 16 \
    --enable-dp-attention \
    --dp-size 16 \
    --max-running-requests 1024 \
    --chunked-prefill-size 8192 \
    --context-length 9216 \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.96 \
    --cuda-graph-bs 1 2 4 8 12 16 24 32 40 48 56 64 \
    --disaggregation-mode decode \
    --disaggregation-transfer-backend nixl \
    --nnodes 4 \
    --node-rank "${NODE_RANK:?set NODE_RANK to this node's rank, 0..3}" \
    --dist-init-addr "${HEAD_ADDR:?set HEAD_ADDR to rank 0 host:port}" ;;
*)
  echo "usage: $0 frontend|prefill|decode" >&2; exit 2 ;;
esac
