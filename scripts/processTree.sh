# Sourced by scripts/pg.sh and scripts/brokers.sh: the process trees they end on the way out.

# The pids of the processes descended from the given roots (the roots included), one per line.
tree_of() {
  ps -eo pid=,ppid= | awk -v roots=" $* " '
    { pid[NR] = $1; parent[NR] = $2 }
    END {
      for (i = 1; i <= NR; i++) if (index(roots, " " pid[i] " ")) mine[pid[i]] = 1
      do { grew = 0
        for (i = 1; i <= NR; i++) if ((parent[i] in mine) && !(pid[i] in mine)) { mine[pid[i]] = 1; grew = 1 }
      } while (grew)
      for (p in mine) print p
    }'
}
