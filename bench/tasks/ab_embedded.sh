#!/usr/bin/env bash
# Same-session A/B of two rift source trees on the tiny tier with the embedded model.
#
#   [TASK_LANG=de] bench/tasks/ab_embedded.sh BASE_SRC NEW_SRC OUT_PREFIX [task ...]
#
# For each task, both trees run at once, each pinned to one CPU (taskset), the CPUs
# swapped from task to task, so both see the same load; on a shared 2-core machine the
# CPU seconds (`cpu_s`) compare better than wall time. Rows go to OUT_PREFIX.base.jsonl
# and OUT_PREFIX.new.jsonl (run_tasks.py's JSON lines). Copy each tree somewhere stable
# first (git archive COMMIT src | tar -x -C DIR): a checkout edited mid-run mixes versions.
set -u
base=$1; new=$2; out=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || mapfile -t tasks < <(python3 "$here/run_tasks.py" --tier tiny --list)
i=0
for task in "${tasks[@]}"; do
  for arm in base new; do
    if [ $arm = base ]; then src=$base; cpu=$((i % 2)); else src=$new; cpu=$((1 - i % 2)); fi
    taskset -c $cpu env PYTHONPATH="$src" python3 "$here/run_tasks.py" --embedded --tier tiny \
      --timeout 600 --tasks "$task" --rift "env PYTHONPATH=$src python3 -m rift" ${TASK_LANG:+--lang "$TASK_LANG"} \
      --out "$out.$arm.jsonl" > /dev/null &
  done
  wait
  i=$((i + 1))
done
