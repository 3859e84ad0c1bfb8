package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.StoredVersion;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cuckoo diff}: compares two stored filters entry by entry ({@link CuckooFilter#forEachEntryCode},
 * {@link CuckooFilter#containsEntryCode}). An entry stands for a key (distinct keys share one only with
 * probability about the false-positive rate), so the counts are those of keys added and removed between
 * two versions, exact up to such collisions.
 */
@Command(name = "diff", usageHelpAutoWidth = true,
    description = "Compares two stored filters (two versions of a location, or two locations) sized alike: "
        + "counts the entries only in A, only in B, and in both.")
final class DiffCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "A[@VERSION]", converter = FilterRef.Converter.class,
      description = "The first filter (default version: the latest).")
  FilterRef first;

  @Parameters(index = "1", paramLabel = "B[@VERSION]", converter = FilterRef.Converter.class,
      description = "The second filter.")
  FilterRef second;

  @Option(names = "--ignore-key-names",
      description = "Accept composite keys whose column names differ (the same columns, in the same order, named "
          + "otherwise); by default they are refused, as (a, b) and (b, a) would hash alike only by accident.")
  boolean ignoreKeyNames;

  @Override
  public Integer call() throws Exception {
    StoredVersion a = read(first);
    StoredVersion b = read(second);
    requireComparable(a, b, "compare", ignoreKeyNames);
    long[] onlyInA = {0};
    long[] inBoth = {0};
    long[] onlyInB = {0};
    a.filter().forEachEntryCode(code -> {
      if (b.filter().containsEntryCode(code)) {
        inBoth[0]++;
      } else {
        onlyInA[0]++;
      }
    });
    b.filter().forEachEntryCode(code -> {
      if (!a.filter().containsEntryCode(code)) {
        onlyInB[0]++;
      }
    });
    PrintWriter out = out();
    out.println("A: " + name(a) + ", " + a.filter().size() + " entries");
    out.println("B: " + name(b) + ", " + b.filter().size() + " entries");
    out.println("only in A: " + onlyInA[0]);
    out.println("only in B: " + onlyInB[0]);
    out.println("in both:   " + inBoth[0]);
    return ExitCodes.OK;
  }
}
