package dev.cuckoofilter.examples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * What the quick-start demo measured and checked: one {@link Phase} for the filter as built (version 1)
 * and one after the incremental update (version 2), and the checks that must hold for the demo to pass.
 */
public final class DemoReport {
  /**
   * The pruned join of one filter version.
   *
   * @param version         the filter store version the join was pruned with
   * @param dimensionKeys   distinct keys of the dimension the filter describes
   * @param filterBytes     size of the stored filter
   * @param bitsPerKey      table bits per stored key
   * @param ordersScanned   rows the filter saw
   * @param ordersKept      rows it let through
   * @param matchingOrders  rows with a match in the dimension: the rows of the join result
   * @param absentKeys      distinct customer keys of the orders that are not in the dimension
   * @param falsePositiveKeys those of them the filter lets through
   * @param expectedFpp     the filter's expected false-positive rate at its load
   * @param unprunedSeconds the join without the filter
   * @param prunedSeconds   the same join with the orders pruned by the stored filter first
   * @param filterSeconds   building (version 1) or updating (version 2) the filter, and publishing it
   */
  public record Phase(long version, long dimensionKeys, long filterBytes, double bitsPerKey, long ordersScanned,
      long ordersKept, long matchingOrders, long absentKeys, long falsePositiveKeys, double expectedFpp, double unprunedSeconds, double prunedSeconds,
      double filterSeconds) {

    /** Rows kept although no dimension key matches them. */
    public long falsePositiveOrders() {
      return ordersKept - matchingOrders;
    }

    /**
     * The filter's false-positive rate as measured: the fraction of absent keys it lets through. This is
     * the rate {@link #expectedFpp} predicts; per order row it differs, as some customers order more.
     */
    public double measuredFpp() {
      return absentKeys == 0 ? 0 : (double) falsePositiveKeys / absentKeys;
    }

    /**
     * True unless the measured rate exceeds the expected one by more than statistical error: more false
     * positive keys than the expected number plus four binomial standard deviations (and one, for tiny
     * counts).
     */
    public boolean fppWithinExpectation() {
      double mean = absentKeys * expectedFpp;
      return falsePositiveKeys <= mean + 4 * Math.sqrt(mean * (1 - expectedFpp)) + 1;
    }

    public double speedup() {
      return unprunedSeconds / prunedSeconds;
    }
  }

  /** A condition the demo verified; the demo fails if any does not hold. */
  public record Check(String description, boolean passed, String detail) {}

  private final String dimension;
  private final List<Phase> phases = new ArrayList<>();
  private final List<Check> checks = new ArrayList<>();

  DemoReport(String dimension) {
    this.dimension = dimension;
  }

  void add(Phase phase) {
    phases.add(phase);
  }

  void check(String description, boolean passed, String detail) {
    checks.add(new Check(description, passed, detail));
  }

  public List<Phase> phases() {
    return List.copyOf(phases);
  }

  public List<Check> checks() {
    return List.copyOf(checks);
  }

  /** True if there were checks and all of them passed. */
  public boolean passed() {
    return !checks.isEmpty() && checks.stream().allMatch(Check::passed);
  }

  /** The summary table, one column per phase, followed by the checks. */
  public String render() {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("Summary"));
    for (Phase p : phases) {
      header.add("version " + p.version() + (p.version() == 1 ? " (built)" : " (updated)"));
    }
    rows.add(header.toArray(new String[0]));
    row(rows, "dimension keys (" + dimension + ")", p -> count(p.dimensionKeys()));
    row(rows, "filter size", p -> count(p.filterBytes()) + " bytes");
    row(rows, "bits per key", p -> String.format(Locale.ROOT, "%.2f", p.bitsPerKey()));
    row(rows, "orders scanned", p -> count(p.ordersScanned()));
    row(rows, "orders kept by the filter", p -> count(p.ordersKept()));
    row(rows, "  matching orders (join rows)", p -> count(p.matchingOrders()));
    row(rows, "  false positives", p -> count(p.falsePositiveOrders()));
    row(rows, "customer keys of orders, not in the dimension", p -> count(p.absentKeys()));
    row(rows, "  let through by the filter", p -> count(p.falsePositiveKeys()));
    row(rows, "measured FPR (per absent key)", p -> percent(p.measuredFpp()));
    row(rows, "expected FPR (filter.expectedFpp())", p -> percent(p.expectedFpp()));
    row(rows, "join without pruning", p -> Steps.seconds(p.unprunedSeconds()));
    row(rows, "join pruned by the stored filter", p -> Steps.seconds(p.prunedSeconds()));
    row(rows, "speedup", p -> String.format(Locale.ROOT, "%.1fx", p.speedup()));
    row(rows, "filter build / update + publish", p -> Steps.seconds(p.filterSeconds()));

    int[] widths = new int[header.size()];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        widths[i] = Math.max(widths[i], r[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      String[] cells = rows.get(r);
      StringBuilder line = new StringBuilder(pad(cells[0], widths[0], false));
      for (int i = 1; i < cells.length; i++) {
        line.append("   ").append(pad(cells[i], widths[i], true));
      }
      out.append(line.toString().stripTrailing()).append('\n');
      if (r == 0) {
        out.append("-".repeat(line.length())).append('\n');
      }
    }
    out.append('\n');
    for (Check c : checks) {
      out.append(c.passed() ? "PASS  " : "FAIL  ").append(c.description()).append(": ").append(c.detail())
          .append('\n');
    }
    return out.toString();
  }

  private void row(List<String[]> rows, String label, Function<Phase, String> value) {
    String[] cells = new String[phases.size() + 1];
    cells[0] = label;
    for (int i = 0; i < phases.size(); i++) {
      cells[i + 1] = value.apply(phases.get(i));
    }
    rows.add(cells);
  }

  private static String pad(String s, int width, boolean right) {
    String fill = " ".repeat(width - s.length());
    return right ? fill + s : s + fill;
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.4f%%", fraction * 100);
  }
}
