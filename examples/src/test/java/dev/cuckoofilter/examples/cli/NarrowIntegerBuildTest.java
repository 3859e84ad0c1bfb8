package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INT32 columns annotated INT(8, signed), INT(16, signed) or INT(8, unsigned) are tinyint or smallint to Spark, which
 * cuts a stored value that does not fit to 8 or 16 bits (parquet-hadoop writes such values without complaint). The
 * tool refuses such a value, naming it, rather than hash the stored int, which Spark never reads; values that fit
 * build the Spark build's filter.
 */
class NarrowIntegerBuildTest {
  @TempDir
  Path dir;

  private Path write(String name, List<int[]> rows) throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int32 i8 (INTEGER(8,true)); "
        + "required int32 i16 (INTEGER(16,true)); required int32 u8 (INTEGER(8,false)); }");
    Path file = dir.resolve(name).resolve("part-00000.parquet");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      for (int[] row : rows) {
        writer.write(new SimpleGroupFactory(schema).newGroup().append("i8", row[0]).append("i16", row[1])
            .append("u8", row[2]));
      }
    }
    return dir.resolve(name);
  }

  private ChildProcess.Result build(Path input, String key) {
    return CuckooTool.inProcess("build", dir.resolve("filters").resolve(input.getFileName() + "-" + key).toString(),
        "--input", input.toString(), "--keys", key, "--expected-items", "1000", "--fpp", "0.001");
  }

  @Test
  void valuesThatDoNotFitSparksNarrowTypeAreRefusedOthersBuildLikeSpark() throws Exception {
    SparkSession spark = TestSpark.session();
    try {
      Path wide = write("wide", List.of(new int[] {1, 2, 3}, new int[] {200, 40_000, 70_000}));
      Row second = spark.read().parquet(wide.toString()).filter("i8 <> 1").first();
      // What Spark reads of the second row: the values cut to 8 and 16 bits.
      assertEquals(List.of((byte) -56, (short) -25_536, (short) 4_464), List.of(second.get(0), second.get(1),
          second.get(2)));
      String[][] cases = {{"i8", "200", "tinyint", "-128 to 127"}, {"i16", "40000", "smallint", "-32768 to 32767"},
          {"u8", "70000", "smallint", "-32768 to 32767"}};
      for (String[] c : cases) {
        ChildProcess.Result built = build(wide, c[0]);
        // Before the fix: built (exit 0) of the stored 200, 40000, 70000: a join pruned with it lost Spark's rows.
        assertEquals(ExitCodes.USAGE, built.exitCode(), built.describe());
        assertTrue(built.stderr().matches("(?s).*key column " + c[0] + " of file:\\S+/wide/part-00000\\.parquet holds "
            + c[1] + ", which does not fit its Spark type " + c[2] + " \\(" + c[3] + "\\).*"), built.describe());
        assertTrue(Files.notExists(dir.resolve("filters").resolve("wide-" + c[0])), built.describe());
      }

      Path fitting = write("fitting", List.of(new int[] {-128, -32_768, 0}, new int[] {127, 32_767, 255},
          new int[] {5, 6, 32_767}));
      Dataset<Row> data = spark.read().parquet(fitting.toString());
      for (String key : List.of("i8", "i16", "u8")) {
        assertEquals(ExitCodes.OK, build(fitting, key).exitCode());
        byte[] expected = CuckooFilters.builder(data).keys(key).expectedItems(1000).fpp(0.001).build().filter()
            .toByteArray();
        FilterStore store = FilterStore.open(dir.resolve("filters").resolve("fitting-" + key).toString(), spark);
        assertArrayEquals(expected, store.readLatest().filter().toByteArray(), key);
      }
    } finally {
      spark.stop();
    }
  }
}
