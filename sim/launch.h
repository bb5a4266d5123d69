/* launch.h — a simulated point as the files that launch it.
 *
 * `aifsim launch` turns a point of a finished run (the plan's picks by default) into what a user
 * runs: for TensorRT-LLM the `trtllm-serve` command and its extra LLM-API YAML, for SGLang and
 * vLLM their server command lines, and for Dynamo (and every disaggregated point) a node script
 * that starts the frontend and the workers plus a Kubernetes DynamoGraphDeployment. Each file
 * carries what the point was simulated with: parallelism, batch caps, chunked prefill, KV-cache
 * precision and pool size (the stack's rule in the profile), CUDA graphs, MTP, EPLB slots and the
 * router; each says which release it targets. Text from the scenario and the options reaches a
 * shell only single-quoted and a YAML file only quoted, so no input can run a command. */
#ifndef AIF_LAUNCH_H
#define AIF_LAUNCH_H

#include "profile.h"
#include "results.h"
#include "scenario.h"

typedef struct {
  const char *model_path; /* the checkpoint the engines load (default: the catalog id, to replace) */
  const char *image;      /* container image for the Kubernetes manifest (NULL: the Dynamo runtime's) */
  const char *name;       /* the deployment's name (NULL: aifsim-<system>-p<point>) */
} LaunchOptions;

typedef struct {
  char *name; /* file name inside the point's folder */
  char *text;
  gboolean executable;
} LaunchFile;

/* The files that launch PT (its prediction ROW, when given, is quoted in the README), as LaunchFile *
 * (free with launch_files_free). */
GPtrArray *launch_files(const Point *pt, const Profile *prof, const ResultRow *row, const LaunchOptions *opt);
void launch_files_free(GPtrArray *files);

#endif
