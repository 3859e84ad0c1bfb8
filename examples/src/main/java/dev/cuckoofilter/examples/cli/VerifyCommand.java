package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.StoredFilterCorruptException;
import dev.cuckoofilter.spark.store.StoredVersion;
import dev.cuckoofilter.spark.store.VersionMetadata;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cuckoo verify}: reads every version of a location as a reader would, which checks the commit
 * record, the data file's length, both CRC32Cs against the record, and the filter's structure
 * (docs/STORE.md, "Reads and verification"), and checks that the metadata describes the filter.
 */
@Command(name = "verify", usageHelpAutoWidth = true,
    description = "Reads and checks every version of a filter location: commit records, checksums, the filters' "
        + "structure, and metadata against filters. Exits with 4 and names each damaged file if any is damaged.")
final class VerifyCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "LOCATION", description = "The filter location.")
  String location;

  @Override
  public Integer call() throws Exception {
    FilterStore store = open(location, "location");
    List<Long> versions = store.versionNumbers();
    if (versions.isEmpty()) {
      throw new InputException("location " + store.location() + " has no filter version to verify");
    }
    PrintWriter out = out();
    int damaged = 0;
    int removed = 0;
    for (long v : versions) {
      try {
        StoredVersion stored = store.readVersion(v);
        String mismatch = metadataMismatch(stored);
        if (mismatch == null) {
          out.println("version " + v + ": ok: " + Publishing.statistics(stored.filter()));
        } else {
          out.println("version " + v + ": DAMAGED: its commit record " + mismatch);
          damaged++;
        }
      } catch (StoredFilterCorruptException e) {
        out.println("version " + v + ": DAMAGED: " + e.getMessage());
        damaged++;
      } catch (FilterVersionNotFoundException e) {
        StoredFilterCorruptException missing = dataFileMissing(store, v);
        if (missing != null) {
          out.println("version " + v + ": DAMAGED: " + missing.getMessage());
          damaged++;
        } else {
          out.println("version " + v + ": removed while verifying (" + e.getMessage() + ")");
          removed++;
        }
      }
    }
    if (damaged > 0) {
      spec.commandLine().getErr().println("cuckoo verify: error: " + damaged + " of " + versions.size()
          + " versions at " + store.location() + " are damaged");
      return ExitCodes.CORRUPT;
    }
    out.println(versions.size() + " version(s) checked, all intact"
        + (removed > 0 ? " (" + removed + " removed while verifying)" : ""));
    return ExitCodes.OK;
  }

  /**
   * What in the metadata is unusable or contradicts the filter (the commit record has no checksum of its
   * own), or null.
   */
  private static String metadataMismatch(StoredVersion stored) {
    VersionMetadata m = stored.metadata();
    try {
      KeySchema.columns(m.keyColumnsJson());
    } catch (InputException e) {
      return "has unusable key columns: " + e.getMessage();
    }
    if (m.itemCount() != stored.filter().size()) {
      return "says " + m.itemCount() + " items but the filter holds " + stored.filter().size();
    }
    if (m.capacity() != stored.filter().capacity()) {
      return "says capacity " + m.capacity() + " but the filter has " + stored.filter().capacity() + " entries";
    }
    return null;
  }
}
