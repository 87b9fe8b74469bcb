#!/usr/bin/env python3
"""Joins C2's printed code for one method with perf's samples: each instruction with its sample count and share.

  LD_LIBRARY_PATH=/tmp/hsdis JVS_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \\
      -XX:CompileCommand=print,io.jvs.core.pipeline.Pipeline::followEstablished" \\
      taskset -c 1 perf record -F 9999 -o p.data -- tools/jvs bench pipeline --flows 1000 > asm.txt
  perf script -i p.data -F ip > p.ips
  perf/jit/annotate.py asm.txt p.ips Pipeline::followEstablished > annotated.txt

The last C2 compilation of the method (not an on-stack-replacement one) is the one annotated; the first line says
how many of all samples fell in it. perf/jit/hsdis-shim.c (on capstone) makes -XX:+PrintAssembly print instructions.
"""
import collections
import re
import sys


def main(assembly_file, samples_file, method):
    lines = open(assembly_file, errors='replace').read().split('\n')
    counts = collections.Counter()
    total = 0
    for line in open(samples_file):
        fields = line.split()
        if fields:
            try:
                counts[int(fields[0], 16)] += 1
                total += 1
            except ValueError:
                pass
    starts = [(n, line) for n, line in enumerate(lines) if line.startswith('Compiled method (')]
    chosen = [(n, line) for n, line in starts if line.startswith('Compiled method (c2)') and method in line and
              ' % ' not in line]
    if not chosen or total == 0:
        sys.exit('annotate: no C2 compilation of %s in %s, or no samples in %s' % (method, assembly_file, samples_file))
    start = chosen[-1][0]
    end = next((n for n, _ in starts if n > start), len(lines))
    inside = 0
    out = []
    for line in lines[start:end]:
        match = re.match(r'\s+0x([0-9a-f]+):', line)
        count = counts.get(int(match.group(1), 16), 0) if match else 0
        inside += count
        out.append(('%7d %6.2f%% ' % (count, 100.0 * count / total) if match else ' ' * 16) + line)
    print('%s: %d of %d samples (%.1f%%)' % (lines[start], inside, total, 100.0 * inside / total))
    print('\n'.join(out))


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
