package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.StoredVersion;
import java.io.PrintWriter;
import java.time.ZoneId;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cuckoo contains}: looks keys up, given as text and converted to the values of the filter's key
 * types ({@link KeyText}).
 */
@Command(name = "contains", usageHelpAutoWidth = true,
    description = "Looks keys up in a stored filter: prints each key with \"maybe present\" (it may be in the "
        + "dataset; false positives at the filter's rate) or \"absent\" (it certainly is not).")
final class ContainsCommand extends StoreCommand {
  @Parameters(index = "0", paramLabel = "LOCATION[@VERSION]", converter = FilterRef.Converter.class,
      description = "The filter location, and optionally the version (default: the latest).")
  FilterRef ref;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY",
      description = "Keys as text: integers, decimals, true/false, dates yyyy-MM-dd, timestamps ISO-8601 "
          + "(2024-05-01T10:00:00Z), strings, binary as hex; composite keys joined by --separator.")
  List<String> keys;

  @Option(names = "--separator", paramLabel = "TEXT", defaultValue = ",",
      description = "Between the components of a composite key (default: ${DEFAULT-VALUE}).")
  String separator;

  @Option(names = "--time-zone", paramLabel = "ZONE", defaultValue = "UTC",
      description = "For timestamps given without an offset, as Spark's session time zone (default: "
          + "${DEFAULT-VALUE}).")
  ZoneId zone;

  @Override
  public Integer call() throws Exception {
    StoredVersion stored = read(ref);
    String keyColumns = stored.metadata().keyColumnsJson();
    KeyText text = new KeyText(KeySchema.columns(keyColumns), KeySchema.charLengths(keyColumns), separator, zone);
    long seed = stored.filter().seed();
    long[] hashes = new long[keys.size()];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = text.hash(keys.get(i), seed); // all keys are checked before anything is printed
    }
    PrintWriter out = out();
    for (int i = 0; i < hashes.length; i++) {
      out.println(keys.get(i) + "\t" + (stored.filter().mightContainHash(hashes[i]) ? "maybe present" : "absent"));
    }
    return ExitCodes.OK;
  }
}
