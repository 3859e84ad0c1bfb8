package dev.cuckoofilter.bench.paper;

/** Piecewise-linear curves through measured points, to locate crossovers between two of them. */
final class Curve {
  private Curve() {}

  /**
   * The smallest {@code x} from which {@code a >= b}, interpolated linearly between the points; the first
   * point if {@code a >= b} already there, NaN if never. {@code x} ascends.
   */
  static double firstReach(double[] x, double[] a, double[] b) {
    if (a[0] >= b[0]) {
      return x[0];
    }
    for (int i = 1; i < x.length; i++) {
      double before = a[i - 1] - b[i - 1];
      double after = a[i] - b[i];
      if (after >= 0) {
        return x[i - 1] + (x[i] - x[i - 1]) * -before / (after - before);
      }
    }
    return Double.NaN;
  }

  /** {@code y(at)} of the curve through ({@code x}, {@code y}), {@code x} ascending; NaN outside its range. */
  static double at(double[] x, double[] y, double at) {
    for (int i = 1; i < x.length; i++) {
      if (at >= x[i - 1] && at <= x[i]) {
        return y[i - 1] + (y[i] - y[i - 1]) * (at - x[i - 1]) / (x[i] - x[i - 1]);
      }
    }
    return Double.NaN;
  }
}
