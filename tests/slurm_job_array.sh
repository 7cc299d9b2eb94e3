#!/bin/bash
# The Slurm job array of docs/batch.md ("Slurm job array"), run for real (CTest: SlurmJobArray,
# label slurm). The test starts a one-node Slurm cluster of its own in a temporary folder: a
# munged with its own key and socket, slurmctld and slurmd with their own slurm.conf (free ports,
# state, spool, logs and pid files in that folder, no cgroups). It takes the docs' job script
# as it is written there (only /data/in and /data/out are replaced by a small tree of tests/data
# and an output folder), submits it with `sbatch --array=0-2 --cpus-per-task=1` (this machine may
# not have the 4 CPUs per task it asks for) and the docs' `merge-reports` job after it, waits
# for both (bounded), and checks that the merged report covers the tree exactly once and equals
# the report of a batch without shards, and that the outputs are byte for byte the same.
# Everything it started is stopped on the way out, whatever happens (trap).
# Skipped (exit 77, the test's SKIP_RETURN_CODE) when not root or when Slurm, MUNGE or python3
# are not installed (scripts/install-deps.sh installs them).
# Usage: slurm_job_array.sh MESHPORT SOURCE_DIR
set -euo pipefail
meshport=$(realpath "$1")
source_dir=$(realpath "$2")
docs=$source_dir/docs/batch.md
started=$SECONDS
# Every wait below ends by this time, so the cleanup runs well inside CTest's TIMEOUT (170 s).
deadline=$((started + 120))
# The daemons are in /usr/sbin, which a root shell's PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: needs root (slurmd starts the jobs; SlurmUser=root), running as $(id -un)"
  exit 77
fi
missing=()
for c in munged mungekey munge unmunge slurmctld slurmd sbatch squeue scontrol scancel python3; do
  command -v "$c" >/dev/null || missing+=("$c")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "skipped: needs Slurm and MUNGE (Debian slurm-wlm, munge; scripts/install-deps.sh installs them) and python3; missing: ${missing[*]}"
  exit 77
fi

# Nothing of a surrounding scheduler may steer this cluster's commands or meshport's --shard auto
# (sbatch reads SBATCH_* and SLURM_* input variables; a Kubernetes job index would win over Slurm's).
unset JOB_COMPLETION_INDEX MESHPORT_SHARD_COUNT $(compgen -v | grep -E '^(SLURM|SBATCH|SQUEUE|SCONTROL)_' || true)

# The folder holds munged's socket: munged wants every folder above its socket searchable by all
# (mode 755), and a Unix socket path has at most 107 bytes, so it is short and under /tmp.
tmp=$(mktemp -d /tmp/meshport-slurm.XXXXXX)
chmod 755 "$tmp"
export SLURM_CONF=$tmp/slurm.conf
pids=()
failed=true

log_tails() {
  for f in "$tmp"/munged.{log,out} "$tmp"/slurmctld.{log,out} "$tmp"/slurmd.{log,out} "$tmp"/work/logs/* "$tmp"/work/slurm-*.out; do
    [ -s "$f" ] || continue
    echo "---- $f (last 20 lines)"
    tail -n 20 "$f"
  done
}

# Stops the jobs, then the daemons (TERM, then KILL after 10 s), then any job step left (a
# slurmstepd of this cluster: SLURM_CONF in its environment names this folder).
cleanup() {
  set +e
  if $failed; then
    echo "FAILED after $((SECONDS - started)) s; logs:"
    log_tails
  fi
  if [ -n "${ctld_pid:-}" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    timeout 10 scancel --quiet --user=root 2>/dev/null
    local until=$((SECONDS + 10)) queued
    while [ $SECONDS -lt $until ]; do
      queued=$(timeout 5 squeue -h -o %i 2>/dev/null) && [ -z "$queued" ] && break
      sleep 0.2
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null; done
  local end=$((SECONDS + 10))
  for p in "${pids[@]}"; do
    while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  for env in $(grep -lzxF "SLURM_CONF=$SLURM_CONF" /proc/[0-9]*/environ 2>/dev/null); do
    p=${env#/proc/}
    p=${p%/environ}
    [ "$p" != $$ ] || continue
    echo "stopping a process left by the cluster: $p $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null)"
    kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Waits up to $1 seconds (and not past the deadline) for the command after it to succeed.
wait_for() {
  local limit=$1
  shift
  local end=$((SECONDS + limit))
  [ $end -le $deadline ] || end=$deadline
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.2
  done
}

alive() {
  kill -0 "$1" 2>/dev/null || fail "$2 exited at start (its log follows)"
}

# slurmd runs each job's script from its spool folder, below this one.
printf '#!/bin/sh\nexit 0\n' >"$tmp/exec-check"
chmod +x "$tmp/exec-check"
"$tmp/exec-check" || fail "/tmp does not let programs run (mounted noexec?): slurmd runs the job scripts from there"

# MUNGE, in the foreground of a background job (its pid is ours to stop), with its own key.
mkdir -m 755 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null
socket=$tmp/munge/munge.socket
munged --foreground --socket="$socket" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 &
pids+=($!)
munge_ok() { timeout 5 munge -n -S "$socket" | timeout 5 unmunge -S "$socket"; }
wait_for 15 munge_ok || { alive "${pids[0]}" munged; fail "munged does not answer on $socket"; }

# Two free TCP ports (the kernel's choice) for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# The node as slurmd sees it (CPUs, boards, sockets, cores, threads, memory): a node configured
# with more than it has would be drained. Its address is 127.0.0.1, so no name has to resolve.
node_line=$(slurmd -C | head -n 1)
node=$(uname -n)
node=${node%%.*}  # slurmctld checks that it runs on SlurmctldHost by the short host name
node_line="NodeName=$node ${node_line#NodeName=* }"
mkdir "$tmp/state" "$tmp/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=meshporttest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_interval=1
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MinJobAge=600
$node_line NodeAddr=127.0.0.1 NodeHostname=$node State=UNKNOWN
PartitionName=meshport Nodes=$node Default=YES MaxTime=10 State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
ctld_pid=$!
pids+=("$ctld_pid")
wait_for 20 timeout 10 scontrol ping || { alive "$ctld_pid" slurmctld; fail "slurmctld does not answer on port $ctld_port"; }
slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { timeout 10 scontrol -o show node "$node" | grep -q 'State=IDLE '; }
if ! wait_for 30 node_idle; then
  alive "${pids[2]}" slurmd
  timeout 10 scontrol show node "$node"
  fail "node $node is not idle after 30 s"
fi
echo "cluster up in $((SECONDS - started)) s: $node_line"

# The tree: the command-line test models, the OBJ scenes, an IQE and the PIE features.
work=$tmp/work
mkdir -p "$work/in/pie" "$tmp/bin"
cp -r "$source_dir/tests/data/cli" "$source_dir/tests/data/obj" "$source_dir/tests/data/iqe" "$work/in/"
cp "$source_dir"/tests/data/pie/feat-*.pie "$work/in/pie/"
ln -s "$meshport" "$tmp/bin/meshport"
export PATH=$tmp/bin:$PATH  # sbatch passes the environment on to the jobs

# The job script and the merge command, as docs/batch.md has them.
awk '/^### Slurm job array/ {s = 1} s && /^```sh$/ {b++; next} s && /^```$/ {if (b == 1) exit; next} s && b == 1' \
  "$docs" >"$work/meshport.sbatch"
grep -q '^#SBATCH --array=' "$work/meshport.sbatch" || fail "no job script under \"### Slurm job array\" in $docs"
sed -i -e "s|/data/in |$work/in |" -e "s|/data/out |$work/out |" "$work/meshport.sbatch"
! grep -q /data/ "$work/meshport.sbatch" || fail "the docs' script names /data/ elsewhere than /data/in and /data/out"
merge=$(awk '/^### Slurm job array/ {s = 1} s && /^```sh$/ {b++; next} s && b == 2 && /--wrap/' "$docs" |
  sed -n "s/.*--wrap '\([^']*\)'.*/\1/p")
[ -n "$merge" ] || fail "no \"sbatch ... --wrap '...'\" after the job script in $docs"
setup=$(awk '/^### Slurm job array/ {s = 1} s && /^```sh$/ {b++; next} s && b == 2 && /^mkdir /' "$docs")
[ -n "$setup" ] || fail "no mkdir of the logs and reports folders before the sbatch in $docs"
echo "job script:"
cat "$work/meshport.sbatch"

cd "$work"
eval "$setup"
array=$(sbatch --parsable --array=0-2 --cpus-per-task=1 meshport.sbatch)
array=${array%%;*}
merge_job=$(sbatch --parsable --dependency=afterany:"$array" --wrap "$merge")
merge_job=${merge_job%%;*}
echo "submitted job array $array and merge job $merge_job: sbatch --wrap '$merge'"

# Waits (bounded) until neither job has a task pending, running or completing (an squeue that
# fails is not an empty queue).
jobs_done() {
  local queued
  queued=$(timeout 10 squeue -h -j "$array,$merge_job" -o %i) && [ -z "$queued" ]
}
wait_for 100 jobs_done || {
  timeout 10 squeue -j "$array,$merge_job"
  fail "the jobs did not finish in $((SECONDS - started)) s after the start"
}
states=$(timeout 10 scontrol -o show job "$array"; timeout 10 scontrol -o show job "$merge_job")
echo "jobs done in $((SECONDS - started)) s:"
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
       printf "  job %s%s: %s (reason %s), exit code %s\n", f["JobId"], f["ArrayTaskId"] == "" ? "" : " (array task " f["ArrayTaskId"] ")",
              f["JobState"], f["Reason"], f["ExitCode"]; delete f }' <<<"$states"

# The shards' reports, the merged one, and a batch of the same tree without shards into the same
# output folder (the sharded outputs moved aside), whose report and outputs must be the same.
[ -d out ] || fail "the job array wrote no output folder"
mv out out-slurm
set +e
meshport batch "$work/in" -o "$work/out" --to glb --progress none -q --report reference.json
reference_status=$?
set -e
diff -r out-slurm out || fail "the sharded outputs differ from the batch without shards"

STATES=$states ARRAY=$array MERGE_JOB=$merge_job REFERENCE_STATUS=$reference_status python3 - <<'EOF'
import json, os, re, sys

def fail(message):
    sys.exit("FAIL: " + message)

# Every job's state and exit code, by array task (the merge job is task None).
jobs = {}
for line in os.environ["STATES"].splitlines():
    f = dict(re.findall(r"(\w+)=(\S*)", line))
    if f["JobId"] == os.environ["MERGE_JOB"]:
        jobs[None] = f
    elif f.get("ArrayJobId") == os.environ["ARRAY"]:
        jobs[int(f["ArrayTaskId"])] = f
if sorted(jobs, key=str) != [0, 1, 2, None]:
    fail(f"expected array tasks 0, 1, 2 and the merge job, scontrol shows {sorted(jobs, key=str)}")

def check_job(key, failed_items, what):
    f = jobs[key]
    want = ("FAILED", "1:0") if failed_items else ("COMPLETED", "0:0")
    if (f["JobState"], f["ExitCode"]) != want:
        fail(f"{what}: JobState={f['JobState']} ExitCode={f['ExitCode']}, expected {want} "
             f"({failed_items} failed items); reason {f.get('Reason')}")

reference = json.load(open("reference.json"))
ref_items = reference["items"]
inputs = [i["input"] for i in ref_items]
if len(inputs) != len(set(inputs)) or len(inputs) < 10:
    fail(f"the batch without shards has {len(inputs)} items ({len(set(inputs))} distinct)")
if not any(i["status"] == "failed" for i in ref_items):
    fail("the tree should hold a file that fails (cli/badindex.iqe)")
if (int(os.environ["REFERENCE_STATUS"]) != 0) != any(i["status"] == "failed" for i in ref_items):
    fail("the batch without shards exited " + os.environ["REFERENCE_STATUS"])

seen = []
for k in range(3):
    shard = json.load(open(f"reports/shard-{k}.json"))
    if shard["shard"] != {"index": k, "count": 3}:
        fail(f"reports/shard-{k}.json is shard {shard['shard']}")
    items = [i["input"] for i in shard["items"]]
    if not items:
        fail(f"shard {k} has no item: the test tree does not reach every shard")
    seen += items
    log = open(f"logs/meshport-{k}.log").read()
    if f"shard {k}/3: {len(items)} files:" not in log:
        fail(f"logs/meshport-{k}.log has no summary line of shard {k}/3 with {len(items)} files:\n{log}")
    check_job(k, sum(i["status"] == "failed" for i in shard["items"]), f"array task {k}")
if sorted(seen) != sorted(inputs):
    fail(f"the shards hold {len(seen)} items ({len(set(seen))} distinct), the tree {len(inputs)}")

merged = json.load(open("report.json"))
check_job(None, merged["summary"]["failed"], "the merge job")
merged_inputs = [i["input"] for i in merged["items"]]
if merged_inputs != inputs:
    fail(f"the merged report lists {len(merged_inputs)} items, not the tree's {len(inputs)} in path order")

def without_times(report):
    r = json.loads(json.dumps(report))
    del r["summary"]["seconds"]
    for i in r["items"]:
        del i["milliseconds"]
    return r

if without_times(merged) != without_times(reference):
    fail("the merged report differs from the report of the batch without shards (times aside):\n"
         + json.dumps(without_times(merged), indent=1) + "\n" + json.dumps(without_times(reference), indent=1))
s = merged["summary"]
print(f"merged report = report without shards: {s['files']} files, {s['converted']} converted, {s['warned']} warned, "
      f"{s['failed']} failed; shards of {', '.join(str(len(json.load(open(f'reports/shard-{k}.json'))['items'])) for k in range(3))} items")
EOF

failed=false
echo "passed in $((SECONDS - started)) s"
