package dev.cuckoofilter.spark.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** Which Spark types can be keys, and which hash alike. */
class KeyTypesTest {
  @Test
  void supportedTypesAndCategories() {
    assertTrue(KeyTypes.supported(DataTypes.createStructType(new org.apache.spark.sql.types.StructField[] {
        DataTypes.createStructField("a", DataTypes.LongType, true),
        DataTypes.createStructField("b", DataTypes.StringType, true)})));
    assertFalse(KeyTypes.supported(DataTypes.createArrayType(DataTypes.IntegerType)));
    assertFalse(KeyTypes.supported(DataTypes.NullType));
    assertEquals(KeyTypes.category(DataTypes.IntegerType), KeyTypes.category(DataTypes.LongType));
    assertEquals(KeyTypes.category(DataTypes.FloatType), KeyTypes.category(DataTypes.DoubleType));
    assertNotEquals(KeyTypes.category(DataTypes.DateType), KeyTypes.category(DataTypes.IntegerType));
    // Equal timestamp and timestamp_ntz values differ in microseconds outside UTC: updates, jobs and
    // probes must not mix them.
    assertNotEquals(KeyTypes.category(DataTypes.TimestampType), KeyTypes.category(DataTypes.TimestampNTZType));
    assertNotEquals(KeyTypes.category(DataTypes.createDecimalType(10, 2)),
        KeyTypes.category(DataTypes.createDecimalType(10, 3)));
    assertEquals(KeyTypes.category(DataTypes.createDecimalType(10, 2)),
        KeyTypes.category(DataTypes.createDecimalType(30, 2)));
  }

  @Test
  void compositeKeysHashAsTheirFieldsAtAnyDepth() {
    org.apache.spark.sql.types.StructType inner = DataTypes.createStructType(new org.apache.spark.sql.types.StructField[] {
        DataTypes.createStructField("x", DataTypes.IntegerType, true),
        DataTypes.createStructField("y", DataTypes.StringType, true)});
    org.apache.spark.sql.types.StructType outer = DataTypes.createStructType(new org.apache.spark.sql.types.StructField[] {
        DataTypes.createStructField("a", inner, true), DataTypes.createStructField("b", DataTypes.LongType, true)});
    java.util.List<org.apache.spark.sql.types.DataType> flat =
        java.util.List.of(DataTypes.LongType, DataTypes.StringType, DataTypes.ShortType);
    assertTrue(KeyTypes.hashAlike(java.util.List.of(outer), flat));
    assertTrue(KeyTypes.hashAlike(java.util.List.of(inner, DataTypes.IntegerType), flat));
    assertFalse(KeyTypes.hashAlike(java.util.List.of(outer), java.util.List.of(DataTypes.LongType, DataTypes.StringType)));
    assertFalse(KeyTypes.hashAlike(java.util.List.of(DataTypes.StringType), java.util.List.of(DataTypes.LongType)));
    assertFalse(KeyTypes.hashAlike(java.util.List.of(DataTypes.TimestampType),
        java.util.List.of(DataTypes.TimestampNTZType)));
  }
}
