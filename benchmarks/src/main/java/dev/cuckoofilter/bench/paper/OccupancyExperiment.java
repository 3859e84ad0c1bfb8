package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.Keys;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Fig. 6-8 (sections 7.2-7.4): throughput at each occupancy. Each filter is filled from empty in equal
 * steps of its capacity (a cuckoo filter stops at its first failed insert): the inserts of each step are
 * timed (Fig. 7), then negative and positive lookups at the reached occupancy (Fig. 6); a full cuckoo
 * filter is then emptied by deletes in the same steps (Fig. 8). Points are medians over runs.
 */
final class OccupancyExperiment implements Experiment {
  private static final Contender[] CONTENDERS = {Contender.CF, Contender.SS_CF, Contender.BF, Contender.BLOCKED_BF};

  @Override
  public String id() {
    return "occupancy";
  }

  @Override
  public String title() {
    return "Fig. 6-8: lookup, insert and delete throughput vs occupancy";
  }

  /** Per-step results of one filter, one row per run. */
  private static final class Curves {
    final double[][] insertLoad;
    final double[][] insertMops;
    final double[][] negativeMops;
    final double[][] positiveMops;
    final double[][] deleteLoad;
    final double[][] deleteMops;

    Curves(int runs, int steps) {
      insertLoad = new double[runs][steps];
      insertMops = new double[runs][steps];
      negativeMops = new double[runs][steps];
      positiveMops = new double[runs][steps];
      deleteLoad = new double[runs][steps];
      deleteMops = new double[runs][steps];
      for (double[] run : insertLoad) {
        Arrays.fill(run, Double.NaN); // steps after a cuckoo filter's first failure stay NaN
      }
    }
  }

  @Override
  public void run(Run run) {
    Scale scale = run.scale;
    long bits = scale.sameMemoryBits();
    long[] members = Keys.members(Math.toIntExact(bits / 12));
    long[] absent = Keys.nonMembers(scale.lookupQueries());
    long[] warmUpQueries = Arrays.copyOf(absent, Math.min(absent.length, 100_000));
    for (Contender c : CONTENDERS) { // warm-up: the JIT compiles every loop before anything is timed
      sweep(c, c.create(48L << scale.warmUpBucketsLog2()), members, warmUpQueries,
          new Curves(1, scale.occupancySteps()), 0);
    }
    Map<Contender, Curves> curves = new LinkedHashMap<>();
    for (Contender c : CONTENDERS) {
      curves.put(c, new Curves(scale.occupancyRuns(), scale.occupancySteps()));
    }
    for (int r = 0; r < scale.occupancyRuns(); r++) {
      for (Contender c : CONTENDERS) {
        System.gc();
        sweep(c, c.create(bits), members, absent, curves.get(c), r);
        Run.log("run %d: %s", r + 1, c.label);
      }
    }
    write(run, curves, bits);
  }

  /** Fills, probes and (if it can) empties one filter, recording the throughputs of each step as run {@code r}. */
  private static void sweep(Contender c, PaperFilter filter, long[] members, long[] absent, Curves into, int r) {
    int steps = into.insertLoad[r].length;
    long capacity = filter.capacity();
    int stored = 0;
    for (int s = 0; s < steps; s++) {
      int from = stored;
      int target = Math.toIntExact(capacity * (s + 1) / steps);
      Timing.Timed insert = Timing.time(() -> filter.addAll(members, from, target));
      stored = (int) insert.result();
      into.insertLoad[r][s] = (double) stored / capacity;
      into.insertMops[r][s] = stored == from ? 0 : insert.mops(stored - from);
      long[] positives = sample(members, stored, absent.length, s);
      into.negativeMops[r][s] = Timing.time(() -> filter.lookupAll(absent)).mops(absent.length);
      into.positiveMops[r][s] = Timing.time(() -> filter.lookupAll(positives)).mops(positives.length);
      if (stored < target) {
        break; // the first failed insert: the filter is full
      }
    }
    if (c.deletes()) {
      int remaining = stored;
      for (int s = 0; s < steps; s++) {
        int from = remaining;
        int to = Math.toIntExact((long) stored * (steps - 1 - s) / steps);
        into.deleteLoad[r][s] = (double) (from + to) / 2 / capacity;
        into.deleteMops[r][s] = Timing.time(() -> filter.removeAll(members, to, from)).mops(from - to);
        remaining = to;
      }
    }
  }

  /** {@code n} stored keys drawn at random: positive lookups in an order unrelated to insertion. */
  private static long[] sample(long[] members, int stored, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      keys[i] = members[r.nextInt(stored)];
    }
    return keys;
  }

  private static void write(Run run, Map<Contender, Curves> curves, long bits) {
    String size = Run.size(bits);
    Csv lookups = new Csv("filter", "load", "negative_lookup_mops", "positive_lookup_mops", "runs");
    Csv inserts = new Csv("filter", "load_after_step", "insert_mops", "runs");
    Csv deletes = new Csv("filter", "load_mid_step", "delete_mops", "runs");
    Plot negative = new Plot("Fig. 6(a): lookups of absent keys, " + size, "α: table occupancy",
        "negative lookup throughput (MOPS)").yFromZero();
    Plot positive = new Plot("Fig. 6(b): lookups of stored keys, " + size, "α: table occupancy",
        "positive lookup throughput (MOPS)").yFromZero();
    Plot insert = new Plot("Fig. 7: inserts, " + size, "α: table occupancy", "insert throughput (MOPS)")
        .yFromZero();
    Plot delete = new Plot("Fig. 8: delete until empty, " + size, "α: table occupancy", "delete throughput (MOPS)")
        .yFromZero();
    curves.forEach((c, k) -> {
      int steps = reachedByAllRuns(k.insertLoad);
      int runs = k.insertLoad.length;
      double[] load = median(k.insertLoad, steps);
      double[] neg = median(k.negativeMops, steps);
      double[] pos = median(k.positiveMops, steps);
      double[] ins = median(k.insertMops, steps);
      for (int s = 0; s < steps; s++) {
        lookups.row(c.label, load[s], neg[s], pos[s], runs);
        inserts.row(c.label, load[s], ins[s], runs);
      }
      negative.line(c.label, load, neg);
      positive.line(c.label, load, pos);
      insert.line(c.label, load, ins);
      if (c.deletes()) {
        double[] dLoad = median(k.deleteLoad, k.deleteLoad[0].length);
        double[] dMops = median(k.deleteMops, k.deleteMops[0].length);
        for (int s = 0; s < dLoad.length; s++) {
          deletes.row(c.label, dLoad[s], dMops[s], runs);
        }
        delete.line(c.label, dLoad, dMops);
        if (c == Contender.CF) {
          compare(run.comparison, neg, pos, dMops);
        }
      }
    });
    run.write("fig6_lookup_vs_occupancy.csv", lookups);
    run.write("fig7_insert_vs_occupancy.csv", inserts);
    run.write("fig8_delete_vs_occupancy.csv", deletes);
    run.plot("fig6_lookup_vs_occupancy.png", negative, positive);
    run.plot("fig7_insert_vs_occupancy.png", insert);
    run.plot("fig8_delete_vs_occupancy.png", delete);
  }

  private static void compare(Comparison comparison, double[] negative, double[] positive, double[] delete) {
    int last = negative.length - 1;
    comparison.add("Fig. 6(a)", "CF negative-lookup throughput, full / first step", 1.0, negative[last] / negative[0],
        "paper: \"mostly stable\" (read as 1)");
    comparison.add("Fig. 6(b)", "CF positive-lookup throughput, full / first step", 1.0, positive[last] / positive[0],
        "paper: \"mostly stable\" (read as 1)");
    comparison.add("Fig. 8", "CF delete throughput, last step (empty) / first step (full)", 1.0,
        delete[delete.length - 1] / delete[0], "paper: \"stable performance\" (read as 1)");
  }

  /** Steps reached in every run (a cuckoo filter may fill up one step earlier in one run). */
  private static int reachedByAllRuns(double[][] loads) {
    int n = loads[0].length;
    for (double[] run : loads) {
      int reached = 0;
      while (reached < run.length && !Double.isNaN(run[reached])) {
        reached++;
      }
      n = Math.min(n, reached);
    }
    return n;
  }

  /** The median over runs of each of the first {@code n} steps. */
  private static double[] median(double[][] values, int n) {
    double[] m = new double[n];
    double[] column = new double[values.length];
    for (int s = 0; s < n; s++) {
      for (int r = 0; r < values.length; r++) {
        column[r] = values[r][s];
      }
      m[s] = Summary.of(column).median();
    }
    return m;
  }
}
