package dev.cuckoofilter.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The non-speed half of the comparison the JMH benchmarks make: for every {@link FilterKind}, filled with
 * the same {@code n} random keys as the benchmarks, the bits per key its data takes and the false-positive
 * rate it delivers on {@value #PROBES} absent keys, and how many keys it refused or lost (an accepted key it no
 * longer finds: a false negative, which fails the run for this project's filters). Prints a Markdown table;
 * writes a CSV with {@code --out FILE}.
 *
 * <pre>
 * java -Xmx10g -cp benchmarks/target/benchmarks.jar dev.cuckoofilter.bench.SpaceAndAccuracy --out docs/benchmarks/space-accuracy.csv
 * </pre>
 */
public final class SpaceAndAccuracy {
  static final int PROBES = 20_000_000;

  private SpaceAndAccuracy() {}

  /** One filter at one size. */
  record Row(int n, FilterKind kind, long refused, long falseNegatives, double bitsPerKey, long falsePositives,
      int probes) {
    double fpr() {
      return (double) falsePositives / probes;
    }

    /** Half-width of the 95% interval of the measured rate (normal approximation of the binomial). */
    double fprError() {
      return 1.96 * Math.sqrt(fpr() * (1 - fpr()) / probes);
    }
  }

  public static void main(String[] args) throws IOException {
    Path out = null;
    List<Integer> sizes = List.of(1_000_000, 64_000_000);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--out" -> out = Path.of(args[++i]);
        case "--sizes" -> sizes = parseSizes(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: SpaceAndAccuracy [--out FILE.csv] [--sizes N,N...]");
      }
    }
    long[] probes = Keys.nonMembers(PROBES);
    List<Row> rows = new ArrayList<>();
    for (int n : sizes) {
      long[] members = Keys.members(n);
      for (FilterKind kind : FilterKind.values()) {
        if (!kind.isFilter()) {
          continue;
        }
        rows.add(measure(n, kind, members, probes));
        System.err.printf(Locale.ROOT, "%s n=%d done%n", kind, n);
      }
    }
    print(rows, System.out);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      try (PrintStream csv = new PrintStream(Files.newOutputStream(out), true, "UTF-8")) {
        csv.println("n,filter,refused_adds,false_negatives,bits_per_key,false_positives,probes,fpr,fpr_95pct_error");
        for (Row r : rows) {
          csv.printf(Locale.ROOT, "%d,%s,%d,%d,%.4f,%d,%d,%.6g,%.2g%n", r.n(), r.kind(), r.refused(),
              r.falseNegatives(), r.bitsPerKey(), r.falsePositives(), r.probes(), r.fpr(), r.fprError());
        }
      }
    }
  }

  static Row measure(int n, FilterKind kind, long[] members, long[] probes) {
    return measure(n, kind, kind.create(n), members, probes);
  }

  /** Fills {@code f} (a filter of {@code kind} for {@code n} keys) with {@code members} and probes it. */
  static Row measure(int n, FilterKind kind, BenchFilter f, long[] members, long[] probes) {
    // A refused add is reported, not a false negative: only keys the filter accepted must be found.
    boolean[] accepted = new boolean[members.length];
    long refused = 0;
    for (int i = 0; i < members.length; i++) {
      accepted[i] = f.add(members[i]);
      refused += accepted[i] ? 0 : 1;
    }
    long falseNegatives = 0;
    long firstMissing = 0;
    for (int i = 0; i < members.length; i++) {
      if (accepted[i] && !f.mightContain(members[i]) && falseNegatives++ == 0) {
        firstMissing = members[i];
      }
    }
    if (falseNegatives != 0 && (kind == FilterKind.CF || kind == FilterKind.SS_CF)) {
      throw new AssertionError(kind + " at n=" + n + ": " + falseNegatives + " false negatives, the first for "
          + firstMissing);
    }
    long falsePositives = 0;
    for (long k : probes) {
      if (f.mightContain(k)) {
        falsePositives++;
      }
    }
    return new Row(n, kind, refused, falseNegatives, (double) f.bitSize() / n, falsePositives, probes.length);
  }

  static void print(List<Row> rows, PrintStream out) {
    out.println("| keys | filter | bits/key | measured FPR (95% interval) | refused adds | false negatives |");
    out.println("| ---: | --- | ---: | ---: | ---: | ---: |");
    for (Row r : rows) {
      out.printf(Locale.ROOT, "| %,d | %s | %.2f | %.4f%% ± %.4f | %d | %d |%n", r.n(), r.kind(), r.bitsPerKey(),
          100 * r.fpr(), 100 * r.fprError(), r.refused(), r.falseNegatives());
    }
  }

  private static List<Integer> parseSizes(String text) {
    List<Integer> sizes = new ArrayList<>();
    for (String s : text.split(",")) {
      sizes.add(Integer.parseInt(s.trim()));
    }
    return sizes;
  }
}
