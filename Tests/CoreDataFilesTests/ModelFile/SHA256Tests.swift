import Foundation
import Testing
@testable import ObjectGraph

@Suite("SHA-256 and SHA-512")
struct SHA256Tests {
    static let vectors: [(message: String, sha256: String, sha512: String)] = [
        ("",
         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
            + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc",
         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
         "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
            + "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
            + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ]

    @Test("SHA-256 gives the FIPS 180-2 digests of \"\", \"abc\" and the 448- and 896-bit messages")
    func sha256ShortVectors() {
        for vector in Self.vectors {
            #expect(SHA256.hex(SHA256.hash(Array(vector.message.utf8))) == vector.sha256, "\(vector.message)")
        }
    }

    @Test("SHA-512 gives the FIPS 180-2 digests of \"\", \"abc\" and the 448- and 896-bit messages")
    func sha512ShortVectors() {
        for vector in Self.vectors {
            #expect(SHA256.hex(SHA512.hash(Array(vector.message.utf8))) == vector.sha512, "\(vector.message)")
        }
    }

    @Test("SHA-256 and SHA-512 of one million 'a' fed in uneven chunks")
    func millionA() {
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 999)
        var sha256 = SHA256()
        var sha512 = SHA512()
        var remaining = 1_000_000
        while remaining > 0 {
            let part = chunk[0..<min(chunk.count, remaining)]
            sha256.update(part)
            sha512.update(part)
            remaining -= part.count
        }
        #expect(SHA256.hex(sha256.finalize())
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hex(sha512.finalize())
            == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
            + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    @Test("every split of a message into two updates gives the one-shot digest")
    func splitsAgree() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let expected256 = SHA256.hash(message)
        let expected512 = SHA512.hash(message)
        for split in 0...message.count {
            var sha256 = SHA256()
            sha256.update(message[..<split])
            sha256.update(message[split...])
            #expect(sha256.finalize() == expected256, "split at \(split)")
            var sha512 = SHA512()
            sha512.update(message[..<split])
            sha512.update(message[split...])
            #expect(sha512.finalize() == expected512, "split at \(split)")
        }
    }

    @Test("messages of 55, 56, 64 (SHA-256) and 111, 112, 127, 128 bytes (SHA-512) pad correctly")
    func paddingBoundaries() {
        // 55/56/64 bytes straddle SHA-256's length field, 111/112/127/128 SHA-512's.
        let known: [Int: String] = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (count, digest) in known {
            let message = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            #expect(SHA256.hex(SHA256.hash(message)) == digest, "\(count) bytes")
        }
        let known512: [Int: String] = [
            111: "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef8681819692176"
                + "0b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2",
            112: "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32"
                + "bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca",
            127: "828613968b501dc00a97e08c73b118aa8876c26b8aac93df128502ab360f91ba"
                + "b50a51e088769a5c1eff4782ace147dce3642554199876374291f5d921629502",
            128: "b73d1929aa615934e61a871596b3f3b33359f42b8175602e89f7e06e5f658a24"
                + "3667807ed300314b95cacdd579f3e33abdfbe351909519a846d465c59582f321",
        ]
        for (count, digest) in known512 {
            let message = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            #expect(SHA256.hex(SHA512.hash(message)) == digest, "\(count) bytes")
        }
    }

    @Test("a sequence without contiguous storage hashes like the same bytes in an array")
    func lazySequence() {
        let lazy = (0..<1000).lazy.map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hash(lazy) == SHA256.hash(Array(lazy)))
        #expect(SHA512.hash(lazy) == SHA512.hash(Array(lazy)))
        #expect(SHA256.hash(data: Data("abc".utf8)) == Data(SHA256.hash(Array("abc".utf8))))
    }
}
