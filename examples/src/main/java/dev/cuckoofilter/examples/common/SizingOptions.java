package dev.cuckoofilter.examples.common;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.OptionalLong;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How a new filter is sized: {@code --fpp}, {@code --expected-items}, {@code --headroom}, shared by the
 * Spark build job and {@code cuckoo build} so that both size a filter alike. Values are checked as they
 * are parsed, so a bad value is reported before any work starts.
 */
public final class SizingOptions {
  /** Smallest headroom: the relative error of the distinct count the Spark build sizes from. */
  private static final double MIN_HEADROOM = 1.05;
  private static final double MAX_HEADROOM = 1000;

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  private double fpp;
  private long expectedItems;
  private double headroom;

  /** The false-positive rate the filter is sized for. */
  public double fpp() {
    return fpp;
  }

  /** The number of distinct keys to size for, if given; otherwise the input's distinct keys decide. */
  public OptionalLong expectedItems() {
    return expectedItems > 0 ? OptionalLong.of(expectedItems) : OptionalLong.empty();
  }

  /** Room for this many times the input's distinct keys, when sizing from the input. */
  public double headroom() {
    return headroom;
  }

  /**
   * Checks that a filter can be sized as asked: {@code --fpp} within what 32-bit fingerprints deliver, and
   * {@code --expected-items} within the largest table. Call before any work.
   *
   * @throws ParameterException naming the option and the limit
   */
  public void requireFeasible() {
    try {
      CuckooFilter.builder().expectedItems(expectedItems > 0 ? expectedItems : 1).fpp(fpp).parameters();
    } catch (IllegalArgumentException e) {
      String options = expectedItems > 0
          ? "--expected-items " + expectedItems + " with --fpp " + fpp
          : "--fpp " + fpp;
      throw new ParameterException(spec.commandLine(), options + " cannot be met: " + e.getMessage());
    }
  }

  @Option(names = "--fpp", paramLabel = "RATE", defaultValue = "" + CuckooFilter.DEFAULT_FPP,
      description = "False-positive rate the filter is sized for, between 0 and 1 exclusive (default: "
          + "${DEFAULT-VALUE}).")
  void setFpp(double value) {
    if (!(value > 0 && value < 1)) {
      throw new ParameterException(spec.commandLine(), "--fpp must be between 0 and 1 (exclusive), got " + value);
    }
    fpp = value;
  }

  @Option(names = "--expected-items", paramLabel = "N",
      description = "Distinct keys to size the filter for (default: the input's distinct keys times --headroom).")
  void setExpectedItems(long value) {
    if (value <= 0) {
      throw new ParameterException(spec.commandLine(), "--expected-items must be positive, got " + value);
    }
    expectedItems = value;
  }

  @Option(names = "--headroom", paramLabel = "FACTOR", defaultValue = "" + MIN_HEADROOM,
      description = "Without --expected-items: size for this many times the input's distinct keys, leaving room "
          + "for later incremental inserts; " + MIN_HEADROOM + " to " + MAX_HEADROOM + " (default: ${DEFAULT-VALUE}).")
  void setHeadroom(double value) {
    if (!(value >= MIN_HEADROOM && value <= MAX_HEADROOM)) {
      throw new ParameterException(spec.commandLine(), "--headroom must be between " + MIN_HEADROOM + " and "
          + MAX_HEADROOM + ", got " + value);
    }
    headroom = value;
  }
}
