package dev.cuckoofilter.spark.expressions;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.BroadcastBlockId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag$;

/**
 * A probe's filter is deserialized once per executor JVM, not per task or per row, whether it travels as
 * bytes in the tasks (SQL constants, scalar subqueries) or as a broadcast (the DataFrame API): with
 * {@code local[2]} (two task threads at once), many tasks per query and several queries reusing the same
 * filter, every task sees one and the same filter object. Before each check the JVM's copy is forgotten,
 * as in an executor that has not seen the filter yet, so that the first task really deserializes it.
 */
class FilterHandleOncePerJvmTest {
  static SparkSession spark;
  static final int TASKS = 48;
  static final int QUERIES = 3;
  /** The filter objects the tasks obtained from their handle (tasks run in this JVM with local[2]). */
  static final Set<CuckooFilter> SEEN = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
  static byte[] bytes;
  static Dataset<Row> big;
  static long members;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    bytes = (byte[]) spark.range(0, 20_000).selectExpr("cuckoo_filter(id * 3)").first().get(0);
    big = spark.range(0, 240_000, 1, TASKS).toDF();
    members = 20_000; // ids 0, 3, ..., 59997 of big
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @BeforeEach
  void clearSeen() {
    SEEN.clear();
  }

  /** One job of {@link #TASKS} tasks, each with its own deserialized copy of {@code handle}: the tasks run. */
  static long tasksUsing(FilterHandle handle) {
    Dataset<Long> ran = spark.range(0, TASKS, 1, TASKS).mapPartitions((MapPartitionsFunction<Long, Long>) it -> {
      SEEN.add(handle.filter());
      return List.of(1L).iterator();
    }, Encoders.LONG());
    return ran.collectAsList().size();
  }

  /** Rows of {@link #big} the probe keeps, over {@link #TASKS} tasks (whole-stage code generation). */
  static long kept(Column filter) {
    return big.where(new Column(CuckooMightContain.create(filter.expr(), List.of(col("id").expr())))).count();
  }

  @Test
  void filterBytesAreDeserializedOncePerJvm() throws Exception {
    FilterHandle handle = FilterHandle.ofBytes(bytes, "test");
    assertTrue(handle.getClass().getSimpleName().contains("Bytes"), "small filters travel as bytes in the tasks");
    FilterHandle.FilterCache.clear(); // a JVM that has not seen the filter
    long before = FilterHandle.filtersDeserialized();
    long tasks = 0;
    for (int q = 0; q < QUERIES; q++) {
      tasks += tasksUsing(handle);
    }
    assertEquals((long) QUERIES * TASKS, tasks);
    assertEquals(1, SEEN.size(), "one filter object for every task");
    assertEquals(before + 1, FilterHandle.filtersDeserialized(), "deserialized once for " + tasks + " tasks");

    // The probe itself, with the filter as a constant and as a scalar subquery (same bytes): several queries
    // of many tasks deserialize nothing more, and answer as the filter does.
    CuckooFilter filter = SEEN.iterator().next();
    long expected = 0;
    for (long id = 0; id < 240_000; id++) {
      expected += filter.mightContain(id) ? 1 : 0;
    }
    assertTrue(expected >= members);
    big.createOrReplaceTempView("once_big");
    for (int q = 0; q < QUERIES; q++) {
      assertEquals(expected, kept(lit(bytes)));
      assertEquals(expected, spark.sql("SELECT count(*) FROM once_big WHERE cuckoo_might_contain("
          + "(SELECT cuckoo_filter(id * 3) FROM range(0, 20000)), id)").first().getLong(0));
    }
    assertEquals(before + 1, FilterHandle.filtersDeserialized(), "the probes reuse the JVM's filter");
  }

  @Test
  void broadcastFiltersAreDeserializedOncePerJvm() throws Exception {
    CuckooFilter original = CuckooFilter.fromByteArray(bytes);
    Broadcast<CuckooFilter> broadcast = spark.sparkContext().broadcast(original,
        ClassTag$.MODULE$.apply(CuckooFilter.class));
    FilterHandle handle = FilterHandle.of(broadcast, original);
    // In local mode this JVM's block manager keeps the driver's object; an executor JVM has only the
    // serialized pieces. Forget the object, so that the tasks read and deserialize the pieces.
    BroadcastBlockId id = new BroadcastBlockId(broadcast.id(), "");
    SparkEnv.get().blockManager().removeBlock(id, false);
    SparkEnv.get().broadcastManager().cachedValues().remove(id);
    long before = FilterHandle.filtersDeserialized();

    long tasks = 0;
    for (int q = 0; q < QUERIES; q++) {
      tasks += tasksUsing(handle);
      // The probe, with the same broadcast, between the jobs.
      assertTrue(kept(new Column(new FilterReference(handle))) >= members);
    }
    assertEquals((long) QUERIES * TASKS, tasks);
    assertEquals(1, SEEN.size(), "one filter object for every task");
    CuckooFilter deserialized = SEEN.iterator().next();
    assertFalse(deserialized == original, "the tasks deserialized the broadcast rather than using the driver's object");
    assertEquals(original, deserialized);
    assertEquals(before, FilterHandle.filtersDeserialized(), "broadcast filters do not go through the byte cache");
    broadcast.destroy();
  }

  /** Separate handles of equal bytes (probes compiled separately) share the JVM's one filter. */
  @Test
  void handlesOfEqualBytesShareOneFilter() {
    List<FilterHandle> handles = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      handles.add(FilterHandle.ofBytes(bytes, "test"));
    }
    FilterHandle.FilterCache.clear();
    long before = FilterHandle.filtersDeserialized();
    for (FilterHandle h : handles) {
      tasksUsing(h);
    }
    assertEquals(1, SEEN.size());
    assertEquals(before + 1, FilterHandle.filtersDeserialized());
  }
}
