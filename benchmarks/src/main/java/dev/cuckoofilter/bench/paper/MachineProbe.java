package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.Keys;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.SplittableRandom;

/**
 * Measures the machine, to read throughput numbers against the paper's (a 2010 Xeon L5640): the cost
 * of the item hash (the paper: about 20 ns for CityHash), the latency of one random memory read (what a
 * dependent chain of cache misses costs) and the rate of independent random reads (the memory-level
 * parallelism a lookup loop can use; a cuckoo lookup makes two such reads, a Bloom lookup up to k).
 */
final class MachineProbe implements Experiment {
  private static final int READS = 10_000_000;

  @Override
  public String id() {
    return "machine";
  }

  @Override
  public String title() {
    return "Machine: hash cost, memory latency and random-read rate";
  }

  @Override
  public void run(Run run) {
    long[] keys = Keys.members(READS);
    double hashNanos = 1e3 / Timing.mops(READS, () -> hashAll(keys), 1, 3).mean();
    int[] next = randomCycle(1 << (run.scale.probeBytesLog2() - 2));
    double latencyNanos = 1e3 / Timing.mops(READS, () -> chase(next, READS), 1, 3).mean();
    int[] positions = new int[READS];
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < READS; i++) {
      positions[i] = r.nextInt(next.length);
    }
    double independentMops = Timing.mops(READS, () -> gather(next, positions), 1, 3).mean();
    String array = (4L * next.length >> 20) + " MiB int array";
    run.write("machine.csv", new Csv("measure", "value", "unit")
        .row("64-bit item hash (CuckooHash.hashLong, SplitMix64 finalizer)", hashNanos, "ns per item")
        .row("dependent random read, " + array, latencyNanos, "ns per read")
        .row("independent random reads, " + array, independentMops, "million reads/s"));
    run.comparison.add("Section 7", "item hash time (ns)", PaperNumbers.HASH_NANOS, hashNanos,
        "paper: CityHash64 on a 2010 Xeon; ours: SplitMix64 finalizer");
    Run.log("hash %.1f ns, random read %.0f ns, independent reads %.0f M/s", hashNanos, latencyNanos, independentMops);
  }

  private static long hashAll(long[] keys) {
    long sum = 0;
    for (long k : keys) {
      sum += CuckooHash.hashLong(k, 0);
    }
    return sum;
  }

  /** A single random cycle through all indexes (Sattolo's algorithm), so a chase visits the whole array. */
  private static int[] randomCycle(int n) {
    int[] next = new int[n];
    for (int i = 0; i < n; i++) {
      next[i] = i;
    }
    SplittableRandom r = new SplittableRandom(3);
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i);
      int t = next[i];
      next[i] = next[j];
      next[j] = t;
    }
    return next;
  }

  private static long chase(int[] next, int steps) {
    int at = 0;
    for (int i = 0; i < steps; i++) {
      at = next[at];
    }
    return at;
  }

  private static long gather(int[] array, int[] positions) {
    long sum = 0;
    for (int p : positions) {
      sum += array[p];
    }
    return sum;
  }
}
