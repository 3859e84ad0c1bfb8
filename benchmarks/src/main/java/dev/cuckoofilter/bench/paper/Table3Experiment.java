package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.Keys;
import dev.cuckoofilter.bench.paper.SameMemoryFilters.Filled;

/**
 * Table 3 (section 7.1): bits per item, measured false-positive rate and construction rate of filters of
 * one memory size, filled to capacity, and their plot ({@link Table3Plot}). Also the ;login: article's
 * space-efficiency numbers.
 */
final class Table3Experiment implements Experiment {
  @Override
  public String id() {
    return "table3";
  }

  @Override
  public String title() {
    return "Table 3: space efficiency and construction speed";
  }

  @Override
  public void run(Run run) {
    SameMemoryFilters filters = run.sameMemory();
    int queries = run.scale.fprQueries();
    long[] absent = Keys.nonMembers(queries);
    Csv csv = new Csv("filter", "implementation", "configuration", "memory_bytes", "items", "bits_per_item",
        "load_factor", "false_positive_rate", "fpr_queries", "construction_mops");
    double[] fpr = new double[Contender.values().length];
    for (Filled f : filters.filled.values()) {
      fpr[f.contender().ordinal()] = (double) f.filter().lookupAll(absent) / queries;
      csv.row(f.contender().label, f.contender().implementation, f.filter().configuration(), f.filter().bitSize() / 8,
          f.items(), f.bitsPerItem(), f.load(), fpr[f.contender().ordinal()], queries, f.constructionMops());
    }
    run.write(Table3Plot.CSV, csv);
    plotFromCsv(run);
    compare(run.comparison, filters, fpr);
  }

  @Override
  public boolean plotFromCsv(Run run) {
    Table3Plot.draw(run);
    return true;
  }

  private static void compare(Comparison comparison, SameMemoryFilters filters, double[] fpr) {
    String sizes = "ours: " + Run.size(filters.bits) + " filters, the paper's 192 MB";
    PaperNumbers.Table3Column paperBloom = PaperNumbers.TABLE3.get(Contender.BF);
    Filled bloom = filters.filled.get(Contender.BF);
    for (Contender c : new Contender[] {Contender.CF, Contender.SS_CF, Contender.BF, Contender.BLOCKED_BF}) {
      PaperNumbers.Table3Column paper = PaperNumbers.TABLE3.get(c);
      Filled ours = filters.filled.get(c);
      if (c == Contender.CF || c == Contender.SS_CF) {
        comparison.add("Table 3", c.label + " load at first failure (items / entries)",
            paper.itemsMillion() * 1e6 / PaperNumbers.TABLE3_ENTRIES, ours.load(),
            "paper: " + paper.itemsMillion() + "M items in 2^27 entries; " + sizes);
      }
      comparison.add("Table 3", c.label + " bits per item", paper.bitsPerItem(), ours.bitsPerItem(), sizes);
      comparison.add("Table 3", c.label + " false-positive rate", paper.falsePositiveRate(), fpr[c.ordinal()], "");
      comparison.add("Table 3", c.label + " construction rate (M items/s)", paper.constructionMops(),
          ours.constructionMops(), "absolute speed: different machine, compare the ratios to BF");
      if (c != Contender.BF) {
        comparison.add("Table 3", c.label + " construction rate / BF's", paper.constructionMops()
            / paperBloom.constructionMops(), ours.constructionMops() / bloom.constructionMops(), "");
      }
    }
    double cfFpr = fpr[Contender.CF.ordinal()];
    double ssFpr = fpr[Contender.SS_CF.ordinal()];
    comparison.add("Table 3", "ss-CF false-positive rate / CF's", PaperNumbers.TABLE3.get(Contender.SS_CF)
        .falsePositiveRate() / PaperNumbers.TABLE3.get(Contender.CF).falsePositiveRate(), ssFpr / cfFpr,
        "semi-sorting buys one fingerprint bit: 1/2 expected");
    comparison.add(";login:", "CF bits per item", PaperNumbers.LOGIN_CF_BITS_PER_ITEM,
        filters.filled.get(Contender.CF).bitsPerItem(), "");
    comparison.add(";login:", "CF false-positive rate", PaperNumbers.LOGIN_CF_FPR, cfFpr, "");
    comparison.add(";login:", "ss-CF bits per item", PaperNumbers.LOGIN_SS_CF_BITS_PER_ITEM,
        filters.filled.get(Contender.SS_CF).bitsPerItem(), "");
    comparison.add(";login:", "ss-CF false-positive rate", PaperNumbers.LOGIN_SS_CF_FPR, ssFpr, "");
    comparison.add(";login:", "BF false-positive rate at 13 bits per item", PaperNumbers.LOGIN_BF_FPR,
        fpr[Contender.BF.ordinal()], "");
  }
}
