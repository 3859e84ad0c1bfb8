package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FIXED_LEN_BYTE_ARRAY decimals of precision 18 or less, which Spark 3.5 reads as a 64-bit unscaled value made of the
 * low-order bits of the stored bytes ({@code ParquetRowConverter.binaryToUnscaledLong}, whose shift is taken mod 64):
 * of 9 bytes it keeps the low 8 bits, of 12 the low 32, of 16 all 64. Parquet allows any length that holds the
 * precision, and writers that store decimals in wider arrays than needed exist. The tool refuses a value Spark reads as
 * another one, naming it, rather than hash the stored value, which Spark never reads; values Spark reads as stored
 * build the Spark build's filter.
 */
class DecimalBytesBuildTest {
  @TempDir
  Path dir;

  private static byte[] fixedBytes(long unscaled, int length) {
    byte[] minimal = BigInteger.valueOf(unscaled).toByteArray();
    byte[] out = new byte[length];
    Arrays.fill(out, unscaled < 0 ? (byte) -1 : 0);
    System.arraycopy(minimal, 0, out, length - minimal.length, minimal.length);
    return out;
  }

  /** Rows {@code (id, f9, f12, f16)}: the same unscaled values, DECIMAL(18,2) in 9 and 16 bytes, DECIMAL(9,2) in 12. */
  private Path write(String name, List<Long> unscaled) throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int32 id; "
        + "required fixed_len_byte_array(9) f9 (DECIMAL(18,2)); required fixed_len_byte_array(12) f12 (DECIMAL(9,2)); "
        + "required fixed_len_byte_array(16) f16 (DECIMAL(18,2)); }");
    Path file = dir.resolve(name).resolve("part-00000.parquet");
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
        .withType(schema).withConf(new Configuration()).build()) {
      for (int i = 0; i < unscaled.size(); i++) {
        long v = unscaled.get(i);
        writer.write(new SimpleGroupFactory(schema).newGroup().append("id", i)
            .append("f9", Binary.fromConstantByteArray(fixedBytes(v, 9)))
            .append("f12", Binary.fromConstantByteArray(fixedBytes(v, 12)))
            .append("f16", Binary.fromConstantByteArray(fixedBytes(v, 16))));
      }
    }
    return dir.resolve(name);
  }

  private ChildProcess.Result build(Path input, String key) {
    return CuckooTool.inProcess("build", dir.resolve("filters").resolve(input.getFileName() + "-" + key).toString(),
        "--input", input.toString(), "--keys", key, "--expected-items", "1000", "--fpp", "0.001");
  }

  private void assertBuildsLikeSpark(SparkSession spark, Path input, String key) throws Exception {
    ChildProcess.Result built = build(input, key);
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    Dataset<Row> data = spark.read().parquet(input.toString());
    byte[] expected = CuckooFilters.builder(data).keys(key).expectedItems(1000).fpp(0.001).build().filter()
        .toByteArray();
    FilterStore store = FilterStore.open(dir.resolve("filters").resolve(input.getFileName() + "-" + key).toString(),
        spark);
    assertArrayEquals(expected, store.readLatest().filter().toByteArray(), key);
  }

  @Test
  void decimalsSparkReadsFromTheirLowBytesAreRefusedOthersBuildLikeSpark() throws Exception {
    SparkSession spark = TestSpark.session();
    try {
      // 1000.00 is 0x0186A0 unscaled: Spark reads its 9 bytes as the low byte 0xA0, -96, so -0.96; 12 or 16 as stored
      Path wide = write("wide", List.of(5L, 100_000L, -7L));
      Row second = spark.read().parquet(wide.toString()).where("id = 1").first();
      assertEquals(List.of(new BigDecimal("-0.96"), new BigDecimal("1000.00"), new BigDecimal("1000.00")),
          List.of(second.getDecimal(1), second.getDecimal(2), second.getDecimal(3)));
      ChildProcess.Result built = build(wide, "f9");
      // Before the fix: built (exit 0) of the stored 1000.00, which Spark never reads: a join pruned with it lost the
      // rows Spark read as -0.96.
      assertEquals(ExitCodes.USAGE, built.exitCode(), built.describe());
      assertTrue(built.stderr().matches("(?s).*key column f9 of file:\\S+/wide/part-00000\\.parquet holds 1000\\.00 "
          + "\\(9 bytes\\), which Spark reads as -0\\.96.*"), built.describe());
      assertTrue(Files.notExists(dir.resolve("filters").resolve("wide-f9")), built.describe());

      // Values Spark reads as stored: in 9 bytes those of -128 to 127 unscaled, in 12 those of 32 bits, in 16 all.
      Path fitting = write("fitting", List.of(-128L, 127L, 5L, -1L, 0L));
      Path large = write("large", List.of(999_999_999L, -999_999_999L, 100_000L, 12_345L));
      assertBuildsLikeSpark(spark, fitting, "f9");
      assertBuildsLikeSpark(spark, large, "f12");
      assertBuildsLikeSpark(spark, large, "f16");
    } finally {
      spark.stop();
    }
  }
}
