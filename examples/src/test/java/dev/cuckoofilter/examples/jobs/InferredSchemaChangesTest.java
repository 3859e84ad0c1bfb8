package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * update-filter with change files whose schema Spark infers (CSV with inferSchema=true, JSON): a file without
 * rows has no values to infer a type from, so Spark reads its columns as strings (CSV with a header) or finds no
 * columns (JSON).
 */
class InferredSchemaChangesTest extends SparkJobTest {
  /** A CSV file with a header {@code id,name} and rows for the ids {@code from} (inclusive) to {@code to}. */
  private static String csv(String name, long from, long to) throws IOException {
    Path file = dir.resolve(name + ".csv");
    Files.writeString(file, "id,name\n" + LongStream.range(from, to).mapToObj(id -> id + ",c-" + id + "\n")
        .collect(Collectors.joining()));
    return file.toString();
  }

  private static String[] csvJob(String... args) {
    String[] all = new String[args.length + 6];
    System.arraycopy(new String[] {"--format", "csv", "--read-option", "header=true", "--read-option",
        "inferSchema=true"}, 0, all, 0, 6);
    System.arraycopy(args, 0, all, 6, args.length);
    return all;
  }

  /**
   * A day without deletions gives a change file with only the header, and a table emptied gives an empty current
   * dataset: update-filter refused them, "key column id of --deleted ... is string, but the filter ... was built on
   * id int" (exit code 2). A dataset without rows changes no key, whatever types Spark infers for it.
   */
  @Test
  void changeFilesWithoutRowsAreEmptyChangesWhateverTheirInferredTypes() throws Exception {
    String location = dir.resolve("filters").resolve("customers").toString();
    Result built = inProcess(new BuildFilterJob(), csvJob("--input", csv("before", 0, 100), "--keys", "id",
        "--location", location, "--expected-items", "1000"));
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());

    String after = csv("after", 0, 150);
    Result updated = inProcess(new UpdateFilterJob(), csvJob("--location", location, "--added", csv("added", 100, 150),
        "--deleted", csv("no-deletions", 0, 0), "--current", after));
    assertEquals(ExitCodes.OK, updated.exitCode(), updated.describe());
    String fresh = dir.resolve("filters").resolve("fresh").toString();
    Result rebuilt = inProcess(new BuildFilterJob(), csvJob("--input", after, "--keys", "id", "--location", fresh,
        "--expected-items", "1000"));
    assertEquals(ExitCodes.OK, rebuilt.exitCode(), rebuilt.describe());
    assertArrayEquals(FilterStore.open(fresh, spark).readLatest().filter().toByteArray(),
        FilterStore.open(location, spark).readLatest().filter().toByteArray());

    Result emptied = inProcess(new UpdateFilterJob(), csvJob("--location", location, "--deleted", after,
        "--current", csv("emptied", 0, 0)));
    assertEquals(ExitCodes.OK, emptied.exitCode(), emptied.describe());
    assertEquals(0, FilterStore.open(location, spark).readLatest().filter().size());

    // Rows whose key is null change no key either (a filter holds no null key): a CSV file of such rows has a string
    // id column, as inference finds no value in it.
    Path nullKeys = Files.writeString(dir.resolve("null-keys.csv"), "id,name\n,c-x\n,c-y\n");
    Result nulls = inProcess(new UpdateFilterJob(), csvJob("--location", location, "--deleted", nullKeys.toString(),
        "--added", nullKeys.toString(), "--current", csv("emptied-again", 0, 0)));
    assertEquals(ExitCodes.OK, nulls.exitCode(), nulls.describe());
    assertEquals(0, FilterStore.open(location, spark).readLatest().filter().size());

    Path noLines = Files.writeString(dir.resolve("none.json"), "");
    Result json = inProcess(new UpdateFilterJob(), "--format", "json", "--location", location,
        "--before", noLines.toString(), "--after", noLines.toString());
    assertEquals(ExitCodes.OK, json.exitCode(), json.describe());
  }
}
