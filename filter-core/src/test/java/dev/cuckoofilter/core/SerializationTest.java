package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.cuckoofilter.core.kryo.CuckooFilterSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SerializationTest {
  static CuckooFilter sample(boolean semiSorted) {
    CuckooFilter f = CuckooFilter.builder().semiSorted(semiSorted).expectedItems(100_000).fpp(0.001).seed(9).build();
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 40_000; i++) {
      f.add(r.nextLong());
      f.add("key-" + i);
    }
    return f;
  }

  @ParameterizedTest
  @CsvSource({"false", "true"})
  void javaSerializationCarriesTheBinaryFormat(boolean semiSorted) throws Exception {
    CuckooFilter filter = sample(semiSorted);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(filter);
      out.writeObject("after");
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      CuckooFilter copy = (CuckooFilter) in.readObject();
      assertEquals(filter, copy);
      assertArrayEquals(filter.toByteArray(), copy.toByteArray());
      assertEquals("after", in.readObject());
      for (int i = 0; i < 40_000; i++) {
        assertTrue(copy.mightContain("key-" + i));
      }
    }
    // The filter's custom data in the stream is the binary format verbatim: one copy, nothing else.
    byte[] format = filter.toByteArray();
    assertArrayEquals(format, customData(bytes.toByteArray(), format));
  }

  @ParameterizedTest
  @CsvSource({"false", "true"})
  void aSmallFiltersJavaSerializedFormContainsItsBinaryFormContiguously(boolean semiSorted) throws Exception {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).expectedItems(60).seed(3).build();
    for (int i = 0; i < 40; i++) {
      filter.add("key-" + i);
    }
    byte[] format = filter.toByteArray();
    // Shorter than the 1024-byte block-data records of Java serialization: not split by record headers.
    assertTrue(format.length < 1024, "format is " + format.length + " bytes");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(filter);
    }
    assertTrue(indexOf(bytes.toByteArray(), format) >= 0, "the whole binary format is in the stream");
    assertArrayEquals(format, customData(bytes.toByteArray(), format));
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertArrayEquals(format, ((CuckooFilter) in.readObject()).toByteArray());
    }
  }

  /**
   * The custom data Java serialization wrote for the filter: ObjectOutputStream frames it in block-data
   * records of at most 1024 bytes (TC_BLOCKDATA 0x77 + 1-byte length, TC_BLOCKDATALONG 0x7A + 4-byte
   * length) ending with TC_ENDBLOCKDATA 0x78, so a large filter's bytes are not contiguous in the stream.
   * The first record starts with the format's 80-byte header; this returns the records' concatenated
   * payload up to the end marker.
   */
  static byte[] customData(byte[] stream, byte[] format) {
    int header = indexOf(stream, java.util.Arrays.copyOf(format, 80));
    assertTrue(header >= 0, "no format header in the stream");
    int at = header >= 5 && stream[header - 5] == 0x7A ? header - 5 : header - 2;
    ByteBuffer in = ByteBuffer.wrap(stream, at, stream.length - at); // big-endian, as Java serialization
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (byte tag = in.get(); tag != 0x78; tag = in.get()) {
      assertTrue(tag == 0x77 || tag == 0x7A, () -> "unexpected tag in the custom data at " + in.position());
      int length = tag == 0x77 ? in.get() & 0xFF : in.getInt();
      data.write(stream, in.position(), length);
      in.position(in.position() + length);
    }
    return data.toByteArray();
  }

  @ParameterizedTest
  @CsvSource({"false", "true"})
  void kryoWritesTheSameBytes(boolean semiSorted) {
    CuckooFilter filter = sample(semiSorted);
    Kryo kryo = new Kryo();
    kryo.register(CuckooFilter.class, new CuckooFilterSerializer());
    // The serializer itself writes exactly the binary format.
    Output direct = new Output(1024, -1);
    new CuckooFilterSerializer().write(kryo, direct, filter);
    assertArrayEquals(filter.toByteArray(), direct.toBytes(), "Kryo bytes are the binary format");
    // Through Kryo's object graph (with its own reference marker in front), followed by other objects.
    Output output = new Output(1024, -1);
    kryo.writeObject(output, filter);
    kryo.writeObject(output, "after");
    byte[] written = output.toBytes();
    Input input = new Input(written);
    CuckooFilter copy = kryo.readObject(input, CuckooFilter.class);
    assertEquals(filter, copy);
    assertEquals("after", kryo.readObject(input, String.class));
    CuckooFilter copied = kryo.copy(filter);
    assertEquals(filter, copied);
    copied.add("new");
    assertTrue(copied.size() == filter.size() + 1, "kryo.copy is independent");

    byte[] corrupt = written.clone();
    corrupt[200] ^= 1;
    KryoException e = assertThrows(KryoException.class,
        () -> kryo.readObject(new Input(corrupt), CuckooFilter.class));
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  /** A Kryo that was not told about the filter (Encoders.kryo, Spark's Kryo without the registrator). */
  @Test
  void unregisteredKryoStillWritesTheBinaryFormat() {
    CuckooFilter filter = sample(false);
    Kryo kryo = new Kryo();
    Output output = new Output(1024, -1);
    kryo.writeClassAndObject(output, filter);
    kryo.writeClassAndObject(output, "after");
    Input input = new Input(output.toBytes());
    CuckooFilter copy = (CuckooFilter) kryo.readClassAndObject(input);
    assertArrayEquals(filter.toByteArray(), copy.toByteArray());
    assertEquals("after", kryo.readClassAndObject(input));
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
