#!/bin/sh
# tests/integration/packages-inside.sh STEP - run inside the clean chroot
# of tests/integration/packages.sh (copied to /falcon-test there), with the
# installed packages only: /usr/sbin, /usr/bin, Slurm's plugin directory,
# /etc/slurm and /etc/falcon filled from /usr/share/doc/*/examples.
#
#   configure   slurm.conf, gres.conf, plugstack.conf (the packaged
#               snippet linked), falcon.conf (the packaged template,
#               edited), munge key, falcon-sim's credentials
#   start       munged, falcon-sim, falcond (as slurm, as its unit does),
#               slurmctld, slurmd
#   job         sbatch --gres=falcon_gpu:4 train.sh: COMPLETED, falconGPUs
#   hold        a job holding 2 GPUs (a lease) for a while; prints its id
#   leases      falconctl status (the ledger's leases)
#   restart-falcond  falcond stopped and started again (after an upgrade)
#   wait JOBID  until the job is COMPLETED, then until its lease is gone
#   stop        every daemon started here, by pid file
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu

say() { echo "packages-inside: $*"; }
die() { echo "packages-inside: error: $*" >&2; exit 1; }
ex=/usr/share/doc/falcon-slurm-common/examples
st=/var/spool/falcon-test
node=$(hostname)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

example() { # example NAME - a packaged example, compressed or not
	if [ -f "$ex/$1" ]; then cat "$ex/$1"; else zcat "$ex/$1.gz"; fi
}
wait_for() { # wait_for SECONDS WHAT CMD...
	n=$1; what=$2; shift 2
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le $((n * 5)) ] || return 1
		sleep 0.2
	done
}
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }

case $1 in
configure)
	mkdir -p $st/ctld $st/spool $st/log $st/run $st/jobs /var/lib/falcon-sim
	chown -R slurm:slurm $st/ctld $st/log
	chmod 1777 $st/jobs
	# slurm.conf from the packaged template (its @VARIABLES@ as
	# scripts/cluster.sh fills them), SlurmUser slurm as Debian's
	example slurm.conf.in | sed \
		-e "s|@CLUSTER@|falcon|; s|@NODE@|$node|g; s|@CTLD_ADDR@|127.0.0.1|" \
		-e 's|@CTLD_PORT@|6817|; s|@SLURMD_PORT@|6818|; s|@CPUS@|2|' \
		-e "s|@STATE_DIR@/etc/plugstack.conf|/etc/slurm/plugstack.conf|; s|@STATE_DIR@|$st|g" \
		-e 's|@MUNGE_SOCKET@|/run/munge/munge.socket.2|g; s|@PROLOG_TIMEOUT@|120|g' \
		-e 's|@PROCTRACK_TYPE@|proctrack/linuxproc|; s|@TASK_PLUGIN@|task/none|' \
		-e 's|@NODE_GRES@|falcon_gpu:16,falcon_nvme:2|; s|@NODE2_LINE@||; s|@NODE_FEATURES@||' \
		-e 's|@PROLOG_LINE@|Prolog=/usr/sbin/falcon-prolog|' \
		-e 's|@EPILOG_LINE@|Epilog=/usr/sbin/falcon-epilog|' \
		-e 's|@PROLOG_SLURMCTLD_LINE@||; s|@PLUGINDIR_LINE@||; s|@LICENSE_TRES@||' \
		-e 's|@JOB_SUBMIT_LINE@|JobSubmitPlugins=falcon|' \
		-e 's|@PREEMPT_LINES@||; s|@PREEMPT_PARTITION_LINE@||; s|@PARTITION_LINE@||' \
		-e 's|@NODE_ADDR@|127.0.0.1|' \
		-e 's|@LICENSES_LINE@|Licenses=falcon1_gpu:8,falcon1_nvme:1|' \
		-e 's|^SlurmUser=root|SlurmUser=slurm|' -e '/^AccountingStorage/d' \
		-e '/^AccountingStoreFlags/d' >/etc/slurm/slurm.conf
	echo 'AccountingStorageType=accounting_storage/none' >>/etc/slurm/slurm.conf
	! grep -v '^#' /etc/slurm/slurm.conf | grep '@[A-Z_]*@' || die "slurm.conf: unfilled variable"
	example gres.conf >/etc/slurm/gres.conf
	# plugstack.conf: the packaged snippet, linked as its comment says
	mkdir -p /etc/slurm/plugstack.conf.d
	echo 'include /etc/slurm/plugstack.conf.d/*.conf' >/etc/slurm/plugstack.conf
	ln -sf /usr/share/falcon-slurm/plugstack.conf.d/falcon.conf /etc/slurm/plugstack.conf.d/
	[ -s /etc/munge/munge.key ] || mungekey -c -k /etc/munge/munge.key
	chown munge:munge /etc/munge/munge.key
	# falcon-sim's credentials: falcond (slurm) reads them, mode 0600
	(umask 077; echo "falcond:$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
		>/etc/falcon/falcon1.credentials)
	chown slurm:slurm /etc/falcon/falcon1.credentials
	# falcon.conf: the packaged template, its marker line removed and
	# the cluster described (this host plays falcon-sim's node1)
	grep -q '^# falcon-slurm: unedited template' /etc/falcon/falcon.conf ||
		die "the packaged falcon.conf has no template marker"
	sed -i '/^# falcon-slurm: unedited template/d' /etc/falcon/falcon.conf
	cat >>/etc/falcon/falcon.conf <<EOF

# ---- this test's cluster (tests/integration/packages.sh) ----
StateDir=/var/lib/falcon
RunDir=/run/falcon
SysfsRoot=/var/lib/falcon-sim/sysfs/node1
ListenAddress=127.0.0.1:6830
SlurmUser=slurm
PrologTimeout=100
EpilogTimeout=60
RescanTimeout=15
ChassisName=falcon1 Url=http://127.0.0.1:8000/ Backend=redfish-fabric \\
	Mode=standard Timeout=5 CredentialsFile=/etc/falcon/falcon1.credentials
HostName=$node Chassis=falcon1 Port=H1,H2 Adapter=0000:3b:00.0,0000:af:00.0
PartitionName=DEFAULT AllowTopologies=ALL Place=pack Check=off
EOF
	say "configured: /etc/slurm (slurm.conf, gres.conf, plugstack.conf), /etc/falcon/falcon.conf"
	;;
start)
	mkdir -p /run/munge /run/falcon
	chown munge:munge /run/munge
	runuser -u munge -- /usr/sbin/munged
	wait_for 10 munged sh -c 'munge -n | unmunge' || die "munged does not answer"
	setsid /usr/bin/falcon-sim --listen 127.0.0.1:8000 --sysfs-root /var/lib/falcon-sim/sysfs \
		--config /usr/share/doc/falcon-sim/examples/falcon-sim.json \
		--credentials /etc/falcon/falcon1.credentials \
		--port-file /var/lib/falcon-sim/port </dev/null >$st/log/falcon-sim.log 2>&1 &
	echo $! >$st/run/falcon-sim.pid
	wait_for 20 falcon-sim test -s /var/lib/falcon-sim/port || die "falcon-sim: $(tail -n 3 $st/log/falcon-sim.log)"
	"$0" start-falcond
	slurmctld || die "slurmctld: $(tail -n 5 $st/log/slurmctld.log)"
	slurmd || die "slurmd: $(tail -n 5 $st/log/slurmd-*.log)"
	wait_for 60 "node idle" sh -c "sinfo -h -n $node -o %t | grep -q idle" ||
		die "node not idle: $(sinfo -h -o '%n %t %E'; tail -n 5 $st/log/slurmctld.log)"
	say "munged, falcon-sim, falcond (user slurm), slurmctld, slurmd running; node $node idle"
	;;
start-falcond)
	# as falcond.service runs it: User=slurm, StateDirectory=falcon (0700)
	mkdir -p /var/lib/falcon
	chown slurm:slurm /var/lib/falcon
	chmod 0700 /var/lib/falcon
	setsid runuser -u slurm -- /usr/sbin/falcond --config /etc/falcon/falcon.conf \
		</dev/null >>$st/log/falcond.log 2>&1 &
	echo $! >$st/run/falcond.pid
	wait_for 30 falcond sh -c 'falconctl status' ||
		die "falcond does not answer: $(tail -n 5 $st/log/falcond.log)"
	;;
restart-falcond)
	kill "$(cat $st/run/falcond.pid)" 2>/dev/null || true
	wait_for 20 "falcond to stop" sh -c "! kill -0 $(cat $st/run/falcond.pid)"
	"$0" start-falcond
	say "falcond $(dpkg-query -W -f="\${Version}" falcond) restarted (pid $(cat $st/run/falcond.pid))"
	;;
job)
	cp "$ex/train.sh" $st/jobs/train.sh 2>/dev/null || zcat "$ex/train.sh.gz" >$st/jobs/train.sh
	out=$(cd $st/jobs && sbatch --parsable --gres=falcon_gpu:4 -o "$st/jobs/train-%j.out" train.sh) ||
		die "sbatch refused the job"
	id=${out%%;*}
	say "job $id submitted: $(scontrol show job "$id" | grep -o 'Licenses=[^ ]*' || true)"
	wait_for 240 "job $id" sh -c "[ \"\$(scontrol show job $id | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')\" = COMPLETED ]" || {
		scontrol show job "$id" | head -20
		tail -n 20 $st/log/slurmctld.log $st/log/slurmd-*.log $st/jobs/train-"$id".out 2>/dev/null
		die "job $id: $(job_state "$id"), not COMPLETED"
	}
	grep -q '^FALCON_TOPOLOGY=falconGPUs' $st/jobs/train-"$id".out ||
		{ cat $st/jobs/train-"$id".out; die "job $id: no FALCON_TOPOLOGY=falconGPUs in its output"; }
	say "job $id COMPLETED, FALCON_TOPOLOGY=falconGPUs; $(scontrol show job "$id" | grep -o 'AdminComment=[^ ]*' || true)"
	;;
hold)
	out=$(cd $st/jobs && sbatch --parsable --gres=falcon_gpu:2 -o "$st/jobs/hold-%j.out" \
		--wrap 'echo FALCON_TOPOLOGY=$FALCON_TOPOLOGY; sleep 60')
	id=${out%%;*}
	wait_for 120 "job $id running" sh -c "grep -q FALCON_TOPOLOGY $st/jobs/hold-$id.out" ||
		die "job $id did not start: $(job_state "$id")"
	echo "$id"
	;;
leases)
	falconctl status
	;;
wait)
	id=$2
	wait_for 120 "job $id" sh -c "[ \"\$(scontrol show job $id | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')\" = COMPLETED ]" ||
		die "job $id: $(job_state "$id"), not COMPLETED"
	;;
stop)
	for d in slurmd slurmctld; do
		f=$st/run/$d.pid
		[ "$d" = slurmd ] && f=$(ls $st/run/slurmd-*.pid 2>/dev/null | head -n 1)
		[ -n "$f" ] && [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	for p in falcond falcon-sim; do
		[ -f $st/run/$p.pid ] && kill "$(cat $st/run/$p.pid)" 2>/dev/null || true
	done
	[ -f /run/munge/munged.pid ] && kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
	sleep 2
	;;
*) die "unknown step $1" ;;
esac
