#!/bin/sh
# One engine of the point, for TensorRT-LLM 1.0 (PyTorch backend). Written by aifsim launch for agg 1x tp8 ep8 dp fp4 trtllm mtp3 c256.
# MODEL: the checkpoint to serve, in the precision the point was simulated at.
set -eu
cd "$(dirname "$0")"
MODEL=${MODEL:-'org/Model-Name'}
# one engine spans 2 nodes: run this under MPI, one rank per GPU, e.g.
#   srun -N 2 --ntasks-per-node 4 --mpi pmix sh THIS_SCRIPT
# (trtllm-llmapi-launch starts the ranks behind one server)
PORT=${PORT:-8000}
exec trtllm-llmapi-launch trtllm-serve "$MODEL" --backend pytorch --host 0.0.0.0 --port "$PORT" \
    --extra_llm_api_options extra-llm-api-config.yaml
