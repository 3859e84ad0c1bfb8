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
import java.util.SplittableRandom;
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
    // The serialized stream contains the binary format verbatim (one copy, no re-encoding).
    byte[] format = filter.toByteArray();
    assertTrue(indexOf(bytes.toByteArray(), java.util.Arrays.copyOf(format, 80)) >= 0);
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
