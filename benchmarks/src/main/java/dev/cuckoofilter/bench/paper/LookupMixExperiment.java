package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.Keys;
import dev.cuckoofilter.bench.paper.SameMemoryFilters.Filled;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToIntFunction;
import org.knowm.xchart.style.Styler;

/**
 * Fig. 5 (section 7.2): lookup throughput of full filters as the fraction {@code p} of lookups for
 * stored items goes from 0 to 100%. Same filters as Table 3. Besides the paper's one-call-per-key
 * lookups, this project's batched lookup ({@code mightContainAll}) is shown as "CF, batched".
 */
final class LookupMixExperiment implements Experiment {
  private static final int STEPS = 10;

  @Override
  public String id() {
    return "fig5";
  }

  @Override
  public String title() {
    return "Fig. 5: lookup throughput vs fraction of positive lookups";
  }

  @Override
  public void run(Run run) {
    SameMemoryFilters filters = run.sameMemory();
    Scale scale = run.scale;
    long[] absent = Keys.nonMembers(scale.lookupQueries());
    Map<String, double[]> mops = new LinkedHashMap<>();
    Csv csv = new Csv("filter", "positive_fraction", "mops_median", "mops_mean", "mops_min", "mops_max", "repetitions");
    for (Filled f : filters.filled.values()) {
      List<Series> series = new ArrayList<>(List.of(new Series(f.contender().label, f.filter()::lookupAll)));
      if (f.filter() instanceof CuckooAdapter cuckoo && f.contender() == Contender.CF) {
        series.add(new Series("CF, batched", cuckoo::lookupAllBatched));
      }
      for (Series s : series) {
        double[] medians = new double[STEPS + 1];
        for (int step = 0; step <= STEPS; step++) {
          double p = (double) step / STEPS;
          long[] queries = mix(filters.members, f.items(), absent, p, step);
          Summary r = Timing.mops(queries.length, () -> s.lookup.applyAsInt(queries), 1, scale.timedRepetitions());
          medians[step] = r.median();
          csv.row(s.name, p, r.median(), r.mean(), r.min(), r.max(), r.count());
        }
        Run.log("%-12s %.1f M/s at p = 0, %.1f M/s at p = 1", s.name, medians[0], medians[STEPS]);
        mops.put(s.name, medians);
      }
    }
    run.write("fig5_lookup_vs_positive_fraction.csv", csv);
    double[] p = new double[STEPS + 1];
    for (int step = 0; step <= STEPS; step++) {
      p[step] = (double) step / STEPS;
    }
    Plot plot = new Plot("Fig. 5: lookups in full " + Run.size(filters.bits) + " filters",
        "p: fraction of queries on existing items", "lookup throughput (million OPS)").xPattern("0%").yFromZero()
        .legend(Styler.LegendPosition.OutsideE);
    mops.forEach((name, y) -> plot.line(name, p, y));
    run.plot("fig5_lookup_vs_positive_fraction.png", plot);
    compare(run.comparison, mops, p);
  }

  private record Series(String name, ToIntFunction<long[]> lookup) {}

  /** Queries of which a fraction {@code p} (in expectation) are stored keys, the rest absent keys, shuffled. */
  static long[] mix(long[] members, int stored, long[] absent, double p, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] queries = new long[absent.length];
    for (int i = 0; i < queries.length; i++) {
      queries[i] = r.nextDouble() < p ? members[r.nextInt(stored)] : absent[i];
    }
    return queries;
  }

  private static void compare(Comparison comparison, Map<String, double[]> mops, double[] p) {
    double[] cf = mops.get(Contender.CF.label);
    double[] ss = mops.get(Contender.SS_CF.label);
    double[] bf = mops.get(Contender.BF.label);
    double[] blocked = mops.get(Contender.BLOCKED_BF.label);
    double gap = 0;
    for (int i = 0; i < p.length; i++) {
      gap += (blocked[i] - bf[i]) / p.length;
    }
    comparison.add("Fig. 5", "blk-BF minus BF lookup throughput, mean over p (M/s)",
        PaperNumbers.BLOCKED_MINUS_STANDARD_BLOOM_MOPS, gap, "paper: \"about 4 MOPS slower\"; absolute speeds differ");
    comparison.add("Fig. 5", "CF lookup throughput, p = 100% / p = 0%", 1.0, cf[p.length - 1] / cf[0],
        "paper: \"the same high performance\" (read as 1)");
    comparison.add("Fig. 5", "ss-CF faster than BF from this fraction of positive lookups on",
        PaperNumbers.SS_CF_BEATS_BF_ABOVE_POSITIVE_FRACTION, Curve.firstReach(p, ss, bf),
        "interpolated between measured p; 0 = at every p, empty = never");
  }
}
