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
 * rate it delivers on {@value #PROBES} absent keys. Prints a Markdown table; writes a CSV with
 * {@code --out FILE}.
 *
 * <pre>
 * java -Xmx10g -cp benchmarks/target/benchmarks.jar dev.cuckoofilter.bench.SpaceAndAccuracy --out docs/benchmarks/space-accuracy.csv
 * </pre>
 */
public final class SpaceAndAccuracy {
  static final int PROBES = 20_000_000;

  private SpaceAndAccuracy() {}

  /** One filter at one size. */
  record Row(int n, FilterKind kind, long refused, double bitsPerKey, long falsePositives, int probes) {
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
        rows.add(measure(n, kind, members, probes));
        System.err.printf(Locale.ROOT, "%s n=%d done%n", kind, n);
      }
    }
    print(rows, System.out);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      try (PrintStream csv = new PrintStream(Files.newOutputStream(out), true, "UTF-8")) {
        csv.println("n,filter,refused_adds,bits_per_key,false_positives,probes,fpr,fpr_95pct_error");
        for (Row r : rows) {
          csv.printf(Locale.ROOT, "%d,%s,%d,%.4f,%d,%d,%.6g,%.2g%n", r.n(), r.kind(), r.refused(), r.bitsPerKey(),
              r.falsePositives(), r.probes(), r.fpr(), r.fprError());
        }
      }
    }
  }

  static Row measure(int n, FilterKind kind, long[] members, long[] probes) {
    BenchFilter f = kind.create(n);
    long refused = 0;
    for (long k : members) {
      if (!f.add(k)) {
        refused++;
      }
    }
    for (long k : members) {
      if (!f.mightContain(k)) {
        throw new AssertionError(kind + " at n=" + n + ": false negative for " + k);
      }
    }
    long falsePositives = 0;
    for (long k : probes) {
      if (f.mightContain(k)) {
        falsePositives++;
      }
    }
    return new Row(n, kind, refused, (double) f.bitSize() / n, falsePositives, probes.length);
  }

  static void print(List<Row> rows, PrintStream out) {
    out.println("| keys | filter | bits/key | measured FPR (95% interval) | refused adds |");
    out.println("| ---: | --- | ---: | ---: | ---: |");
    for (Row r : rows) {
      out.printf(Locale.ROOT, "| %,d | %s | %.2f | %.4f%% ± %.4f | %d |%n", r.n(), r.kind(), r.bitsPerKey(),
          100 * r.fpr(), 100 * r.fprError(), r.refused());
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
