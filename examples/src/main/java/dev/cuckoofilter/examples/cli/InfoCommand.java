package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.StoredVersion;
import dev.cuckoofilter.spark.store.VersionMetadata;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cuckoo info}: the versions of a location, and the metadata and statistics of one of them. */
@Command(name = "info", usageHelpAutoWidth = true,
    description = "Lists the versions of a filter location and shows the metadata and statistics of one version "
        + "(the latest unless LOCATION@VERSION).")
final class InfoCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "LOCATION[@VERSION]", converter = FilterRef.Converter.class,
      description = "The filter location, and optionally the version to describe.")
  FilterRef ref;

  @Override
  public Integer call() throws Exception {
    FilterStore store = open(ref.location(), "location");
    List<FilterVersion> versions = store.versions();
    PrintWriter out = out();
    out.println("location: " + store.location());
    out.println("versions: " + versions.size());
    for (FilterVersion v : versions) {
      out.printf(Locale.ROOT, "  %6d  published %s  %d bytes%n", v.version(), v.createdAt(), v.filterBytes());
    }
    StoredVersion stored = read(store, ref.version());
    VersionMetadata m = stored.metadata();
    CuckooFilter f = stored.filter();
    FilterParameters p = f.parameters();
    out.println("version " + stored.version().version() + ":");
    out.println("  key columns: " + KeySchema.describe(KeySchema.columns(m.keyColumnsJson())));
    out.println("  source:      " + m.source());
    out.println("  created:     " + m.createdAt() + ", published " + stored.version().createdAt());
    out.println("  parent:      " + (m.parentVersion() == FilterMetadata.NO_PARENT ? "none" : m.parentVersion()));
    out.println("  fpp:         " + m.fpp() + " (sized for)");
    out.println("  properties:  " + m.properties());
    out.println("  filter:      " + Publishing.statistics(f));
    out.printf(Locale.ROOT, "  layout:      %s buckets of %d entries, %d-bit fingerprints, %d buckets, seed %d, "
        + "stash %d/%d, sized for %d items, %d failed inserts%n", p.variant(), p.bucketSize(), p.fingerprintBits(),
        p.bucketCount(), p.seed(), f.stashSize(), p.stashCapacity(), p.expectedItems(), f.failedInserts());
    return ExitCodes.OK;
  }
}
