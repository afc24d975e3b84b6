#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for the SLURM test (tests/test_slurm.py) and for
# trying `--workflow-profile workflow/profiles/slurm` without a real cluster.
#
#   bash scripts/slurm_local.sh start      # install (apt) if needed, configure, start, wait for idle
#   bash scripts/slurm_local.sh status     # sinfo; exit 0 when the node takes jobs
#   bash scripts/slurm_local.sh stop       # stop the daemons this script started, remove its
#                                          # slurm.conf, gres.conf and state (logs stay)
#   bash scripts/slurm_local.sh uninstall  # stop, then purge the packages `start` installed and
#                                          # remove its logs: the machine as it was before
#
# Needs root (apt-get, daemons). Debian's slurm-wlm + munge; one node named `hostname -s` with
# the CPUs and memory `slurmd -C` detects, one partition `debug` (default), cons_tres, no cgroups
# (proctrack/linuxproc, task/none), no accounting database (so Snakemake's slurm plugin must use
# `squeue` for job status; MinJobAge is a day so finished jobs stay visible to squeue and
# `scontrol show job`). One fake GPU (gres gpu:1 on /dev/null) lets a `--gpus=1` request be
# scheduled, so a test can see that `gpu=1` becomes a gres/gpu request.
# The partition oversubscribes (up to 4 jobs a core): a test's many one-second jobs then run
# in one wave instead of queueing two at a time behind the plugin's growing poll interval.
# Controller and node talk over 127.0.0.1. (They still listen on ports 6817/6818 of every
# interface: Slurm has no listen-address setting. Every message must carry a munge credential
# made with this machine's key, so nothing elsewhere can use them.)
# Idempotent: `start` on a running cluster only checks. State, logs: /var/lib/repro-slurm,
# /var/log/repro-slurm. What `start` added to the machine (packages, the users and groups their
# scripts made, /etc/slurm, a munge key) is listed in /var/lib/repro-slurm.undo, which
# `uninstall` reverses (apt's updated package lists stay).
# `stop` removes the slurm.conf it wrote: a slurm.conf naming a controller that is down makes
# every `scontrol show config` wait ~9 s, and the Snakemake SLURM executor plugin runs one each
# time snakemake starts; with no slurm.conf, scontrol fails at once.
#
# Exit status of `start`: 0 ready; 3 slurmctld cannot run here (not root, packages not
# installable, foreign slurm.conf, or slurmctld itself fails): the last line says why;
# 1 anything else (slurmd or the node failed): the last lines say why.
set -uo pipefail

CONF=/etc/slurm/slurm.conf
GRES_CONF=/etc/slurm/gres.conf
MARK="# written by papers-repro scripts/slurm_local.sh"
STATE=/var/lib/repro-slurm
LOGDIR=/var/log/repro-slurm
RUN=/run/repro-slurm
UNDO=/var/lib/repro-slurm.undo  # what start added, a line each: pkg|user|group NAME, file|dir|tree PATH
NODE=$(hostname -s)
WAIT_S=${SLURM_LOCAL_WAIT_S:-60}

say() { echo "slurm_local: $*" >&2; }
cannot() { say "cannot start slurmctld: $*"; exit 3; }
fail() { say "$*"; exit 1; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

node_state() { timeout 15 sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -1; }

install() {
  local need=()
  command -v slurmctld >/dev/null || need+=(slurmctld)
  command -v slurmd >/dev/null || need+=(slurmd)
  command -v sbatch >/dev/null || need+=(slurm-client)
  command -v munged >/dev/null || need+=(munge)
  [ ${#need[@]} -eq 0 ] && return 0
  say "installing ${need[*]} with apt-get"
  local before users groups
  before=$(dpkg-query -W -f='${Package}\n' | sort)
  users=$(getent passwd | cut -d: -f1 | sort)
  groups=$(getent group | cut -d: -f1 | sort)
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${need[@]}"; } >"/tmp/slurm_local_apt.log" 2>&1
  local rc=$?
  # every package this install added (the dependencies too) and the system users and groups
  # their scripts made (munge, slurm), for `uninstall`
  comm -13 <(echo "$before") <(dpkg-query -W -f='${Package}\n' | sort) | sed 's/^/pkg /' >>"$UNDO"
  comm -13 <(echo "$users") <(getent passwd | cut -d: -f1 | sort) | sed 's/^/user /' >>"$UNDO"
  comm -13 <(echo "$groups") <(getent group | cut -d: -f1 | sort) | sed 's/^/group /' >>"$UNDO"
  [ $rc -eq 0 ] || cannot "apt-get install ${need[*]} failed (see /tmp/slurm_local_apt.log: $(tail -1 /tmp/slurm_local_apt.log))"
  rm -f /tmp/slurm_local_apt.log
}

write_conf() {
  if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
    cannot "$CONF exists and was not written by this script (a real cluster's config?); not touching it"
  fi
  # e.g. "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105"
  local hw
  hw=$(slurmd -C 2>/dev/null | head -1)
  case "$hw" in
    NodeName=*) ;;
    *) hw="NodeName=$NODE CPUs=$(nproc) RealMemory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 ))" ;;
  esac
  [ -d /etc/slurm ] || { mkdir -p /etc/slurm && echo "dir /etc/slurm" >>"$UNDO"; }
  mkdir -p "$STATE/ctld" "$STATE/d" "$LOGDIR" "$RUN"
  cat >"$CONF.tmp" <<EOF
$MARK
# A one-node test cluster on loopback. Removed by: scripts/slurm_local.sh stop
ClusterName=repro
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# a requeued job may start again after cred_expire s (default 120): 10 s keeps the
# preemption test short
AuthInfo=cred_expire=10
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
GresTypes=gpu
MpiDefault=none
ReturnToService=2
MinJobAge=86400
MaxJobCount=100000
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
$hw NodeAddr=127.0.0.1 NodeHostname=$NODE Gres=gpu:1 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  mv "$CONF.tmp" "$CONF"
  printf '%s\nNodeName=%s Name=gpu File=/dev/null Count=1\n' "$MARK" "$NODE" >"$GRES_CONF"
}

start_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
  if [ ! -s /etc/munge/munge.key ]; then
    echo "file /etc/munge/munge.key" >>"$UNDO"
    mungekey --create --keyfile=/etc/munge/munge.key 2>/dev/null \
      || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  fi
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  local d
  for d in /run/munge /var/log/munge /var/lib/munge; do
    [ -d "$d" ] || echo "tree $d" >>"$UNDO"
  done
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge
  runuser -u munge -- /usr/sbin/munged 2>"$LOGDIR/munged.err" \
    || cannot "munged failed: $(tail -1 "$LOGDIR/munged.err")"
  touch "$RUN/munged.ours"  # so `stop` stops only a munged this script started
  for _ in $(seq 20); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  cannot "munge does not answer (see /var/log/munge/munged.log)"
}

start() {
  [ "$(id -u)" -eq 0 ] || cannot "needs root (apt-get install slurm-wlm munge, and the daemons)"
  install
  if alive "$RUN/slurmctld.pid"; then  # (sinfo takes ~10 s to give up on a missing controller)
    case "$(node_state)" in
      idle|mixed|allocated) say "already running: $NODE $(node_state)"; return 0 ;;
    esac
  fi
  write_conf
  start_munge
  alive "$RUN/slurmctld.pid" || {
    slurmctld -i 2>"$LOGDIR/slurmctld.err" \
      || cannot "slurmctld failed: $(tail -1 "$LOGDIR/slurmctld.err") $(tail -2 "$LOGDIR/slurmctld.log" 2>/dev/null)"
  }
  for _ in $(seq 20); do
    scontrol ping 2>/dev/null | grep -q "is UP" && break
    alive "$RUN/slurmctld.pid" || sleep 0.5
    sleep 0.5
  done
  scontrol ping 2>/dev/null | grep -q "is UP" \
    || cannot "slurmctld does not answer: $(tail -3 "$LOGDIR/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
  alive "$RUN/slurmd.pid" || {
    slurmd 2>"$LOGDIR/slurmd.err" \
      || fail "slurmd failed: $(tail -1 "$LOGDIR/slurmd.err") $(tail -2 "$LOGDIR/slurmd.log" 2>/dev/null)"
  }
  local t0=$SECONDS state
  while [ $((SECONDS - t0)) -lt "$WAIT_S" ]; do
    state=$(node_state)
    case "$state" in
      idle|mixed|allocated) say "ready: node $NODE $state, partition debug ($(( SECONDS - t0 ))s)"; return 0 ;;
      down*|drain*|inval*) scontrol update nodename="$NODE" state=resume 2>/dev/null ;;
    esac
    sleep 1
  done
  fail "node $NODE not idle after ${WAIT_S}s (state: ${state:-unknown}; $(sinfo -h -R 2>/dev/null | head -1)); slurmd log: $(tail -3 "$LOGDIR/slurmd.log" 2>/dev/null | tr '\n' ' ')"
}

stop_pid() {  # stop one daemon by its pid file, wait for it to exit
  local pidfile=$1 pid
  alive "$pidfile" || return 0
  pid=$(cat "$pidfile")
  kill "$pid"
  for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null
}

stop() {
  [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF" && fail "$CONF is not ours; not stopping anything"
  stop_pid "$RUN/slurmd.pid"
  stop_pid "$RUN/slurmctld.pid"
  [ -f "$RUN/munged.ours" ] && stop_pid /run/munge/munged.pid && rm -f "$RUN/munged.ours"
  # what start wrote besides the logs: with no slurm.conf, scontrol fails at once instead of
  # waiting ~9 s for a controller that is not there
  [ -f "$CONF" ] && rm -f "$CONF" "$GRES_CONF"
  rm -rf "$STATE" "$RUN"
  say "stopped (logs: $LOGDIR)"
}

uninstall() {
  [ "$(id -u)" -eq 0 ] || fail "needs root"
  stop || return 1
  local pkgs=() kind path
  if [ -f "$UNDO" ]; then
    while read -r kind path; do
      case "$kind" in pkg) pkgs+=("$path") ;; esac
    done <"$UNDO"
  fi
  # dpkg, not apt-get: it purges exactly these and refuses (instead of removing more) where a
  # package installed since depends on one of them
  if [ ${#pkgs[@]} -gt 0 ]; then
    say "purging ${pkgs[*]}"
    DEBIAN_FRONTEND=noninteractive dpkg --purge "${pkgs[@]}" >/tmp/slurm_local_dpkg.log 2>&1 \
      || fail "dpkg --purge failed (see /tmp/slurm_local_dpkg.log: $(tail -1 /tmp/slurm_local_dpkg.log))"
    rm -f /tmp/slurm_local_dpkg.log
  fi
  if [ -f "$UNDO" ]; then
    while read -r kind path; do
      case "$kind" in
        file) rm -f "$path" ;;
        dir) rmdir "$path" 2>/dev/null ;;  # a directory start made, if nothing else is in it
        tree) rm -rf "$path" ;;  # a directory start made for a daemon of its own
        user) getent passwd "$path" >/dev/null && userdel "$path" 2>/dev/null ;;
      esac
    done <"$UNDO"
    while read -r kind path; do  # after the users, whose own groups userdel may have removed
      [ "$kind" = group ] && getent group "$path" >/dev/null && groupdel "$path" 2>/dev/null
    done <"$UNDO"
  fi
  rm -rf "$LOGDIR" "$UNDO"
  say "uninstalled: the machine is as before start (apt's package lists stay updated)"
}

status() {
  [ -f "$CONF" ] && grep -qF "$MARK" "$CONF" && ! alive "$RUN/slurmctld.pid" \
    && { say "not running"; return 1; }
  timeout 15 sinfo 2>&1
  case "$(node_state)" in idle|mixed|allocated) return 0 ;; *) return 1 ;; esac
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  uninstall) uninstall ;;
  status) status ;;
  *) echo "usage: $0 start|stop|uninstall|status" >&2; exit 2 ;;
esac
