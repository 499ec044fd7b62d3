import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { createImageDecoder, sharpFailure } from "../../src/images/decode.js";
import { MAX_IMAGE_BYTES } from "../../src/base/limits.js";
import { pollUntil } from "../support/poll.js";
import { MODEL_INPUT_SIZE } from "../../src/images/decoded-image.js";
import { animated, apng, bmp, dataUri, frameRed, gif, gifBomb, jpeg, manyFrameGif, orientedJpeg, pixelAt, png, pngBomb, webp } from "./fixtures.js";

const decode = createImageDecoder();

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

async function expectError(value: string, code: string, status: number, message: string | RegExp, decoder = decode) {
  const error = await rejection(decoder(value));
  expect(error.code).toBe(code);
  expect(error.httpStatus).toBe(status);
  if (typeof message === "string") expect(error.message).toBe(message);
  else expect(error.message).toMatch(message);
}

describe("decoding supported images", () => {
  const formats = [
    ["image/png", png],
    ["image/jpeg", jpeg],
    ["image/webp", webp],
    ["image/gif", gif],
  ] as const;
  for (const [mediaType, make] of formats) {
    it(`decodes ${mediaType} into one 224² RGB frame`, async () => {
      const image = await decode(dataUri(mediaType, await make(64, 48, "#3366cc")));
      expect(image).toMatchObject({ mediaType, width: 64, height: 48, frames: 1, framesSampled: 1, frameIndices: [0] });
      expect(image.modelInput).toHaveLength(1);
      expect(image.modelInput[0]).toHaveLength(MODEL_INPUT_SIZE * MODEL_INPUT_SIZE * 3);
      const centre = pixelAt(image.modelInput[0]!, 112, 112);
      // Lossy formats shift colours a little; the pixels must still be the image's.
      expect(Math.abs(centre.r - 0x33)).toBeLessThan(12);
      expect(Math.abs(centre.g - 0x66)).toBeLessThan(12);
      expect(Math.abs(centre.b - 0xcc)).toBeLessThan(12);
    });
  }

  it('accepts "image/jpg" and upper-case media types as their canonical names', async () => {
    const bytes = await jpeg();
    expect((await decode(dataUri("image/jpg", bytes))).mediaType).toBe("image/jpeg");
    expect((await decode(dataUri("IMAGE/JPEG", bytes))).mediaType).toBe("image/jpeg");
  });

  it("ignores RFC 2397 parameters before ;base64", async () => {
    const bytes = await png();
    expect((await decode(`data:image/png;name=cat.png;base64,${bytes.toString("base64")}`)).width).toBe(64);
  });

  it("samples frames of an animated GIF evenly, first and last included, and says how many", async () => {
    const image = await decode(dataUri("image/gif", await animated("gif", 10)));
    expect(image).toMatchObject({ width: 40, height: 30, frames: 10, framesSampled: 4, frameIndices: [0, 3, 6, 9] });
    const reds = image.modelInput.map((frame) => pixelAt(frame, 112, 112).r);
    expect(reds).toEqual([0, 3, 6, 9].map(frameRed));
  });

  it("samples frames of an animated WebP", async () => {
    const image = await decode(dataUri("image/webp", await animated("webp", 6)));
    expect(image).toMatchObject({ frames: 6, framesSampled: 4, frameIndices: [0, 2, 3, 5] });
    expect(image.modelInput.map((frame) => pixelAt(frame, 5, 5).r)).toEqual([0, 2, 3, 5].map(frameRed));
  });

  it("scores every frame of a short animation", async () => {
    const image = await decode(dataUri("image/gif", await animated("gif", 3)));
    expect(image).toMatchObject({ frames: 3, framesSampled: 3, frameIndices: [0, 1, 2] });
  });

  it("applies the EXIF orientation to the reported size and to the pixels", async () => {
    // Stored 120×80, left half red; orientation 6 displays it turned 90° clockwise: 80×120, red on top.
    const image = await decode(dataUri("image/jpeg", await orientedJpeg(6)));
    expect([image.width, image.height]).toEqual([80, 120]);
    const top = pixelAt(image.modelInput[0]!, 112, 20);
    const bottom = pixelAt(image.modelInput[0]!, 112, 200);
    expect(top.r).toBeGreaterThan(200);
    expect(top.b).toBeLessThan(60);
    expect(bottom.b).toBeGreaterThan(200);
    expect(bottom.r).toBeLessThan(60);

    const upright = await decode(dataUri("image/jpeg", await orientedJpeg(1)));
    expect([upright.width, upright.height]).toEqual([120, 80]);
    expect(pixelAt(upright.modelInput[0]!, 20, 112).r).toBeGreaterThan(200);
  });

  it("shows transparent areas on white and greyscale as RGB", async () => {
    const transparent = await sharp({ create: { width: 10, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    expect(pixelAt((await decode(dataUri("image/png", transparent))).modelInput[0]!, 50, 50)).toEqual({ r: 255, g: 255, b: 255 });
    const grey = await sharp({ create: { width: 10, height: 10, channels: 3, background: "#808080" } }).greyscale().png().toBuffer();
    const decoded = await decode(dataUri("image/png", grey));
    expect(decoded.modelInput[0]).toHaveLength(MODEL_INPUT_SIZE * MODEL_INPUT_SIZE * 3);
    expect(pixelAt(decoded.modelInput[0]!, 3, 3)).toEqual({ r: 128, g: 128, b: 128 });
  });
});

describe("rejecting bad images with stable codes", () => {
  it("rejects strings that are not base64 data URIs", async () => {
    const message = "The image must be a data URI of the form data:<media type>;base64,<data>.";
    const bytes = (await png()).toString("base64");
    for (const value of ["", "hello", bytes, `data:image/png,${bytes}`, `data:image/png;base64${bytes}`, `data:;base64,${bytes}`, `https://example.com/cat.png`]) {
      await expectError(value, "invalid_image", 400, message);
    }
  });

  it("rejects data that is not valid base64", async () => {
    const message = "The image data is not valid base64 (standard alphabet, padded, no whitespace).";
    const bytes = (await png()).toString("base64");
    await expectError(`data:image/png;base64,${bytes.slice(0, -1)}`, "invalid_image", 400, message);
    await expectError(`data:image/png;base64,${bytes.slice(0, 40)}\n${bytes.slice(40)}`, "invalid_image", 400, message);
    await expectError(`data:image/png;base64,${bytes.replaceAll("+", "-").replaceAll("/", "_")}AAAA-_-_`, "invalid_image", 400, message);
    await expectError("data:image/png;base64,iVBO!!!!", "invalid_image", 400, message);
    await expectError(`data:image/png;base64,${bytes.slice(0, 8)}=AAA${bytes.slice(12)}`, "invalid_image", 400, message);
    // "QR==" has non-zero padding bits: no encoder writes it, and decoders disagree about it.
    await expectError(`data:image/png;base64,${Buffer.alloc(30, 7).toString("base64")}QR==`, "invalid_image", 400, message);
    expect((await rejection(decode(`data:image/png;base64,${Buffer.alloc(30, 7).toString("base64")}QQ==`))).message).not.toBe(message);
    await expectError("data:image/png;base64,", "invalid_image", 400, "The image data is empty.");
  });

  it("rejects media types other than JPEG, PNG, WebP and GIF", async () => {
    const bytes = (await png()).toString("base64");
    for (const type of ["image/bmp", "image/svg+xml", "image/tiff", "image/avif", "text/plain", "application/octet-stream"]) {
      await expectError(
        `data:${type};base64,${bytes}`,
        "unsupported_image_type",
        415,
        `The image media type "${type}" is not supported; send one of image/jpeg, image/png, image/webp, image/gif.`,
      );
    }
  });

  it("rejects real images of unsupported formats declared as a supported type", async () => {
    const support = "send one of image/jpeg, image/png, image/webp, image/gif.";
    await expectError(dataUri("image/png", bmp()), "unsupported_image_type", 415, `The image data is BMP, which is not supported; ${support}`);
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#fff" } }).tiff().toBuffer();
    await expectError(dataUri("image/jpeg", tiff), "unsupported_image_type", 415, `The image data is TIFF, which is not supported; ${support}`);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    await expectError(dataUri("image/png", svg), "unsupported_image_type", 415, `The image data is SVG, which is not supported; ${support}`);
  });

  it("refuses an animated PNG: libvips decodes only its default image, which a browser need not show (it was judged as one frame)", async () => {
    const animation = apng(40, 30, [0, 200, 0], [[255, 0, 0], [0, 0, 255]]);
    // What the decoder would have judged: the green still the animation never shows.
    const { data } = await sharp(animation).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0, 200, 0]);
    await expectError(dataUri("image/png", animation), "unsupported_image_type", 415, /animated PNG \(APNG\)/);
  });

  it("decodes at most three frames at once, and a stopped call's frames still waiting are never decoded (they held the pool for seconds)", async () => {
    // About 0.3 s each to decode: interlaced, 3000 × 3000.
    const heavy = dataUri("image/png", await sharp({ create: { width: 3000, height: 3000, channels: 3, background: "#336699" } }).png({ progressive: true, compressionLevel: 1 }).toBuffer());
    const decoder = createImageDecoder();
    const stop = new AbortController();
    const calls = Array.from({ length: 8 }, () => decoder(heavy, stop.signal));
    expect(await pollUntil(() => sharp.counters().process > 0)).toBe(true);
    // sharp's own count of pipelines handed to libuv: waiting for a thread, and running.
    const { queue, process } = sharp.counters();
    expect(queue + process).toBeLessThanOrEqual(3);
    stop.abort(new Error("the call was stopped"));
    const outcomes = await Promise.allSettled(calls);
    const stopped = outcomes.filter((o) => o.status === "rejected");
    expect(stopped.length).toBeGreaterThanOrEqual(5);
    for (const o of stopped) expect((o as PromiseRejectedResult).reason).toMatchObject({ message: "the call was stopped" });
  });

  it("calls a decode that ran its whole time limit too slow, whatever libvips' shared message buffer said", () => {
    // Four such decodes at once read "Unknown error" or another pipeline's words: a valid image was answered as corrupt.
    expect(sharpFailure(new Error("Unknown error"), 5, "to decode", 5_000)).toMatchObject({ code: "image_too_large", message: "The image took longer than 5 s to decode." });
    expect(sharpFailure(new Error("VipsJpeg: Premature end of input file"), 5, "to decode", 5_200)).toMatchObject({ code: "image_too_large" });
    expect(sharpFailure(new Error("timeout: 100% complete"), 5, "to decode", 10)).toMatchObject({ code: "image_too_large" });
    expect(sharpFailure(new Error("Unknown error"), 5, "to decode", 40)).toMatchObject({ code: "invalid_image", httpStatus: 400 });
  });

  it("checks the declared media type against the bytes", async () => {
    await expectError(dataUri("image/png", await jpeg()), "invalid_image", 400, "The image is declared as image/png but its data is image/jpeg.");
    await expectError(dataUri("image/gif", await webp()), "invalid_image", 400, "The image is declared as image/gif but its data is image/webp.");
  });

  it("rejects garbage", async () => {
    await expectError(
      dataUri("image/png", Buffer.from("definitely not an image, just some text")),
      "invalid_image",
      400,
      "The image data is not image/png as declared (its first bytes match no supported format).",
    );
    // Right magic bytes, nothing valid after them.
    const fake = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 0x41)]);
    await expectError(dataUri("image/png", fake), "invalid_image", 400, "The image data is corrupt or truncated and cannot be decoded.");
  });

  const truncations = [
    ["JPEG", "image/jpeg", () => jpeg(200, 150, "#884422")],
    ["PNG", "image/png", () => png(200, 150, "#884422")],
    ["WebP", "image/webp", () => webp(200, 150, "#884422")],
    ["GIF", "image/gif", () => gif(200, 150, "#884422")],
    // libvips alone decodes whatever frames of a cut-off animation it finds; these must fail too.
    ["animated GIF", "image/gif", () => animated("gif", 4, 200, 150)],
    ["animated WebP", "image/webp", () => animated("webp", 4, 200, 150)],
  ] as const;
  for (const [label, mediaType, make] of truncations) {
    it(`rejects a truncated ${label}, wherever it is cut`, async () => {
      const bytes = await make();
      for (const fraction of [0.3, 0.6, 0.9, 0.99]) {
        const cut = bytes.subarray(0, Math.floor(bytes.length * fraction));
        await expectError(dataUri(mediaType, cut), "invalid_image", 400, "The image data is corrupt or truncated and cannot be decoded.");
      }
    });
  }

  it("rejects a PNG whose pixel data fails its checksum", async () => {
    const bad = Buffer.from(await png(200, 150, "#884422"));
    const idat = bad.indexOf("IDAT", 0, "latin1");
    const crcAt = idat + 4 + bad.readUInt32BE(idat - 4);
    bad[crcAt] = bad[crcAt]! ^ 0xff;
    await expectError(dataUri("image/png", bad), "invalid_image", 400, "The image data is corrupt or truncated and cannot be decoded.");
  });

  it("decodes a JPEG with stray bytes before a marker (common in camera output), as whole as it is", async () => {
    const pattern = Buffer.from(Array.from({ length: 400 * 300 * 3 }, (_, i) => (i * 7919) % 251));
    const whole = await sharp(pattern, { raw: { width: 400, height: 300, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const sos = whole.indexOf(Buffer.from([0xff, 0xda]));
    const padded = Buffer.concat([whole.subarray(0, sos), Buffer.from([0, 0]), whole.subarray(sos)]);
    const [decoded, reference] = await Promise.all([decode(dataUri("image/jpeg", padded)), decode(dataUri("image/jpeg", whole))]);
    expect(decoded.modelInput[0]).toEqual(reference.modelInput[0]);
  });

  it("refuses a PNG over 65,535 pixels on a side from its header: libvips pays per row (1 × 40,000,000 took 23 s)", async () => {
    await expectError(dataUri("image/png", pngBomb(1, 40_000_000)), "image_too_large", 413, "The image is 1×40000000 pixels; the limit is 65535 pixels on a side.");
  });

  it("rejects data over 5 MiB from the base64 length, before decoding anything", async () => {
    // One byte over the limit; the data is not even valid base64, which proves nothing was decoded.
    const encodedLength = Math.ceil((MAX_IMAGE_BYTES + 1) / 3) * 4;
    const value = `data:image/png;base64,${"!".repeat(encodedLength)}`;
    await expectError(value, "image_too_large", 413, /^The image is \d+ bytes; the limit is 5242880 bytes \(5 MiB\)\.$/);
  });

  it("lets an image of exactly 5 MiB through the size check", async () => {
    const bytes = Buffer.alloc(MAX_IMAGE_BYTES, 0);
    (await png()).copy(bytes); // a valid PNG followed by zero padding up to the limit
    const image = await decode(dataUri("image/png", bytes));
    expect(image.width).toBe(64);
  });

  it("rejects decompression bombs from the header, before decoding pixels", async () => {
    await expectError(
      dataUri("image/png", pngBomb(100_000, 100_000)),
      "image_too_large",
      413,
      "The image is 100000×100000 pixels (10000000000); the limit is 40000000 pixels.",
    );
    await expectError(
      dataUri("image/gif", gifBomb(65_535, 65_535)),
      "image_too_large",
      413,
      "The image is 65535×65535 pixels (4294836225); the limit is 40000000 pixels.",
    );
  });

  it("applies configured pixel limits to frames and to whole animations", async () => {
    const strict = createImageDecoder({ maxPixels: 1000 });
    await expectError(dataUri("image/png", await png(40, 30)), "image_too_large", 413, "The image is 40×30 pixels (1200); the limit is 1000 pixels.", strict);
    const short = createImageDecoder({ maxAnimationPixels: 40 * 30 * 5 });
    await expectError(
      dataUri("image/gif", await animated("gif", 10)),
      "image_too_large",
      413,
      "The animation has 10 frames of 40×30 pixels; the limit is 6000 pixels over all frames.",
      short,
    );
  });

  it("refuses an animation of more frames than the limit with that reason (200,000 frames of 1×1 read as corrupt)", async () => {
    const many = manyFrameGif(200_000);
    expect(many.byteLength).toBeLessThan(MAX_IMAGE_BYTES);
    await expectError(dataUri("image/gif", many), "image_too_large", 413, "The animation has 200000 frames; the limit is 100000 frames.");
    const fewer = createImageDecoder({ maxFrames: 500 });
    await expectError(dataUri("image/gif", manyFrameGif(501)), "image_too_large", 413, "The animation has 501 frames; the limit is 500 frames.", fewer);
    expect((await fewer(dataUri("image/gif", manyFrameGif(500)))).frames).toBe(500);
  });
});
