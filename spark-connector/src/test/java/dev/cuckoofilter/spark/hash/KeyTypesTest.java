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
    assertNotEquals(KeyTypes.category(DataTypes.createDecimalType(10, 2)),
        KeyTypes.category(DataTypes.createDecimalType(10, 3)));
    assertEquals(KeyTypes.category(DataTypes.createDecimalType(10, 2)),
        KeyTypes.category(DataTypes.createDecimalType(30, 2)));
  }
}
