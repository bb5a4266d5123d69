#!/bin/sh
# One engine of the point, for SGLang 0.5. Written by aifsim launch for agg 1x tp8 ep8 dp fp8 sglang mtp2 c512.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# block-scaled FP8 in FlashInfer's GEMMs, DeepGEMM off, as the point was simulated (and as
# SGLang's Blackwell launches run it: docs/model.md); the experts in its default trtllm-gen MoE
export SGLANG_ENABLE_JIT_DEEPGEMM=false SGL_ENABLE_JIT_DEEPGEMM=false SGLANG_ENABLE_FLASHINFER_GEMM=true
PORT=${PORT:-8000}
exec python3 -m sglang.launch_server --model-path "$MODEL" --host 0.0.0.0 --port "$PORT" \
    --tp-size 8 \
    --ep-size 8 \
    --enable-dp-attention \
    --dp-size 8 \
    --max-running-requests 512 \
    --chunked-prefill-size 16384 \
    --context-length 2050 \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.96 \
    --cuda-graph-bs 1 2 3 4 5 6 7 8 10 12 14 16 18 20 22 24 26 28 30 32 40 44 48 52 56 60 64 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 2 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 3
