package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.SplittableRandom;
import org.knowm.xchart.style.Styler;

/**
 * Fig. 4 (section 6): bits per item needed for a target false-positive rate ε by a space-optimal Bloom
 * filter ({@code log2(1/ε) / ln 2}), a cuckoo filter ({@code (log2(1/ε) + 3) / α}), a semi-sorted one
 * ({@code (log2(1/ε) + 2) / α}) and the information-theoretic bound {@code log2(1/ε)}, with the load
 * factors α measured here, as the paper ("the load factors ... are obtained empirically").
 */
final class SpaceBoundsExperiment implements Experiment {
  private static final double LN2 = Math.log(2);
  private static final int POINTS = 81; // ε from 10^-5 to 10^-1, 20 per decade

  @Override
  public String id() {
    return "fig4";
  }

  @Override
  public String title() {
    return "Fig. 4: bits per item vs target false-positive rate";
  }

  @Override
  public void run(Run run) {
    int log2 = run.scale.table2BucketsLog2();
    double cfLoad = meanLoad(false, 12, log2, run.scale.loadTrials());
    double ssLoad = meanLoad(true, 13, log2, run.scale.loadTrials());
    Csv csv = new Csv("target_fpr", "lower_bound_bits", "bloom_bits", "cf_bits", "ss_cf_bits", "cf_load", "ss_cf_load");
    double[] eps = new double[POINTS];
    double[][] bits = new double[4][POINTS];
    for (int i = 0; i < POINTS; i++) {
      eps[i] = Math.pow(10, -5 + 4.0 * i / (POINTS - 1));
      double log = -Math.log(eps[i]) / LN2;
      bits[0][i] = log / LN2;
      bits[1][i] = (log + 3) / cfLoad;
      bits[2][i] = (log + 2) / ssLoad;
      bits[3][i] = log;
      csv.row(eps[i], bits[3][i], bits[0][i], bits[1][i], bits[2][i], cfLoad, ssLoad);
    }
    run.write("fig4_space_vs_target_fpr.csv", csv);
    // Where a cuckoo filter's (log + c) / α meets the Bloom filter's log / ln 2.
    double ssCrossLog = 2 / (ssLoad / LN2 - 1);
    double cfCrossLog = 3 / (cfLoad / LN2 - 1);
    Plot plot = new Plot("Fig. 4: space cost vs target false-positive rate (α measured)",
        "ε: target false positive probability", "bits per item to achieve ε").logX()
        .curve("Bloom filter", eps, bits[0]).curve("Cuckoo filter", eps, bits[1])
        .curve("semisort-Cuckoo filter", eps, bits[2]).curve("Lower bound", eps, bits[3])
        .points("crossover: " + Csv.significant(ssCrossLog / LN2, 2) + " bits, ε = "
            + Csv.significant(Math.pow(2, -ssCrossLog) * 100, 2) + "%", new double[] {Math.pow(2, -ssCrossLog)},
            new double[] {ssCrossLog / LN2})
        .legend(Styler.LegendPosition.InsideNE);
    run.plot("fig4_space_vs_target_fpr.png", plot);
    Comparison c = run.comparison;
    c.add("Section 6, Table 2", "cuckoo filter load factor α (CF, f = 12)", PaperNumbers.SPACE_TABLE_LOAD, cfLoad,
        "ours: mean of " + run.scale.loadTrials() + " fills of 2^" + log2 + " buckets");
    c.add("Section 6, Table 2", "cuckoo filter load factor α (ss-CF, f = 13)", PaperNumbers.SPACE_TABLE_LOAD, ssLoad,
        "ours: mean of " + run.scale.loadTrials() + " fills of 2^" + log2 + " buckets");
    c.add("Fig. 4", "ss-CF beats a space-optimal Bloom filter below this ε", PaperNumbers.SS_CF_BLOOM_CROSSOVER_FPR,
        Math.pow(2, -ssCrossLog), "ours: from our α");
    c.add("Fig. 4", "bits per item at that crossover", PaperNumbers.SS_CF_BLOOM_CROSSOVER_BITS, ssCrossLog / LN2,
        "ours: from our α");
    run.write("fig4_crossovers.csv", new Csv("filter", "load", "crossover_fpr", "crossover_bits")
        .row("CF", cfLoad, Math.pow(2, -cfCrossLog), cfCrossLog / LN2)
        .row("ss-CF", ssLoad, Math.pow(2, -ssCrossLog), ssCrossLog / LN2));
  }

  private static double meanLoad(boolean semiSorted, int bits, int bucketsLog2, int trials) {
    double[] loads = Run.trials(trials, t -> {
      CuckooFilter filter = CuckooAdapter.paperFaithful(4, bits, semiSorted, 1L << bucketsLog2, 1000 + t);
      CuckooAdapter.fillToFailure(filter, new SplittableRandom(0xF16_4000L + 31L * t + (semiSorted ? 7 : 0)));
      return filter.loadFactor();
    });
    double sum = 0;
    for (double load : loads) { // in trial order: the same sum as one thread's
      sum += load;
    }
    return sum / trials;
  }
}
