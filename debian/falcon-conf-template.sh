#!/bin/sh
# falcon-conf-template.sh EXAMPLE - the packaged /etc/falcon/falcon.conf:
# the example with every setting commented out, under a header whose
# marker line keeps falcond.service from starting (its ExecCondition=)
# until the admin has described the cluster and removed that line.
# Used by debian/rules and packaging/falcon-slurm.spec.
set -eu
cat <<'HEAD'
# falcon-slurm: unedited template; falcond.service does not start until this line is removed
#
# /etc/falcon/falcon.conf - falcon-slurm's configuration, read by falcond,
# falconctl, falcon-prolog/epilog, spank_falcon and job_submit_falcon; see
# falcon.conf(5).  Every setting below is commented out: describe the
# chassis (ChassisName=), the hosts cabled to it (HostName=) and the
# partition policies (PartitionName=), then delete the first line.
#
HEAD
# a setting, and the continuation lines of one, start without '#'
sed -e '/^[^#[:space:]]/s/^/#/' -e '/^[[:space:]][^[:space:]]/s/^/#/' "$1"
