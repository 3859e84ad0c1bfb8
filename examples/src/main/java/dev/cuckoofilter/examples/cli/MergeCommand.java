package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterFullException;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.StoredVersion;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cuckoo merge}: the union of two stored filters (of two locations, or two versions of one) as a new
 * version. Entries of the second filter are added to the first unless present (filters built from
 * datasets hold each entry once, and so does the union), and the result is laid out canonically: it is
 * byte-identical to a filter built from both datasets with the first filter's parameters.
 */
@Command(name = "merge", usageHelpAutoWidth = true,
    description = "Merges two stored filters with the same key types and sizing into a new version holding the "
        + "keys of both; refuses filters sized differently, naming the parameter that differs.")
final class MergeCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "A[@VERSION]", converter = FilterRef.Converter.class,
      description = "The first filter (default version: the latest); the result has its parameters.")
  FilterRef first;

  @Parameters(index = "1", paramLabel = "B[@VERSION]", converter = FilterRef.Converter.class,
      description = "The second filter.")
  FilterRef second;

  @Option(names = "--into", paramLabel = "LOCATION",
      description = "Where to publish the union, as the next version (default: A's location).")
  String into;

  @Option(names = "--source", paramLabel = "TEXT",
      description = "Recorded in the metadata (default: \"merge of A and B\" with their versions).")
  String source;

  @Option(names = "--ignore-key-names",
      description = "Accept composite keys whose column names differ (the same columns, in the same order, named "
          + "otherwise); by default they are refused, as (a, b) and (b, a) would hash alike only by accident.")
  boolean ignoreKeyNames;

  @Override
  public Integer call() throws Exception {
    // The target is read before the inputs: the merge replaces its latest version, so a version published there
    // while the merge runs (an update, another merge) must make the publish a conflict, not be replaced unseen.
    FilterStore target = into != null ? openForPublishing(into, "--into") : open(first.location(), "location");
    long parent = target.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
    StoredVersion a = read(first);
    StoredVersion b = read(second);
    requireComparable(a, b, "merge", ignoreKeyNames);
    CuckooFilter union = a.filter().copy();
    long[] counts = new long[3]; // added, already present, did not fit
    b.filter().forEachEntryCode(code -> {
      if (union.containsEntryCode(code)) {
        counts[1]++;
      } else if (union.addEntryCode(code)) {
        counts[0]++;
      } else {
        counts[2]++;
      }
    });
    if (counts[2] > 0) {
      throw new InputException("the union of " + name(a) + " and " + name(b) + " does not fit in A's table: "
          + counts[2] + " of B's entries could not be placed (" + a.filter().size() + " + " + counts[0] + " entries, "
          + "capacity " + a.filter().capacity() + "); build a larger filter of both datasets instead");
    }
    CuckooFilter merged;
    try {
      merged = CanonicalBuilder.canonical(union);
    } catch (FilterFullException e) { // a nearly full table may take the entries in one order but not another
      throw new InputException("the union of " + name(a) + " and " + name(b) + " is too full to lay out canonically in "
          + "A's table (" + union.size() + " entries, capacity " + union.capacity() + "); build a larger filter of both "
          + "datasets instead");
    }
    PrintWriter out = out();
    out.println("merged " + name(b) + " into " + name(a) + ": " + counts[0] + " entries added, " + counts[1]
        + " already present");
    out.println("the union: " + Publishing.statistics(merged));
    FilterVersion published = Publishing.publishOn(target, parent, merged, a.metadata().keyColumnsJson(),
        source != null ? source : "merge of " + name(a) + " and " + name(b), "cuckoo " + spec.name(), false);
    out.println("published " + published);
    return ExitCodes.OK;
  }
}
