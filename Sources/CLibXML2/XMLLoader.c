// libxml2, loaded when first needed rather than when a process starts.
//
// Linking libxml2.so.2 made the dynamic loader map and bind it and what it stands on (ICU's
// common library and its 30 MB of data, libstdc++, liblzma, zlib) at every start of every
// program, though only reading an XML feed or an .xcdatamodel file calls it: about 0.5 ms of a
// 10 ms `vacation show`, and it kept libstdc++ loaded, which `vacation` otherwise links
// statically (Package.swift). `vacations_libxml2_load` opens the library once and looks up every
// function below; each is then a call through the table, behind one flag read.
//
// The functions keep libxml2's names and prototypes (the headers are included, so a mismatch
// does not compile). Nothing links libxml2.so.2 itself, so these are the only definitions.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CLibXML2.h"

#define LIBXML2_FUNCTIONS(X) \
    X(xmlInitParser) \
    X(xmlReaderForIO) \
    X(xmlReaderForFile) \
    X(xmlFreeTextReader) \
    X(xmlTextReaderSetStructuredErrorHandler) \
    X(xmlTextReaderRead) \
    X(xmlTextReaderDepth) \
    X(xmlTextReaderNodeType) \
    X(xmlTextReaderIsEmptyElement) \
    X(xmlTextReaderConstLocalName) \
    X(xmlTextReaderConstValue) \
    X(xmlTextReaderMoveToNextAttribute) \
    X(xmlTextReaderMoveToElement) \
    X(xmlTextReaderGetAttribute) \
    X(xmlTextReaderCurrentNode) \
    X(xmlGetLineNo) \
    X(xmlNewParserCtxt) \
    X(xmlFreeParserCtxt) \
    X(xmlCtxtReadMemory) \
    X(xmlFreeDoc) \
    X(xmlDocGetRootElement) \
    X(xmlNodeListGetString)

#define SLOT(name) __typeof__(&name) name;
static struct {
    LIBXML2_FUNCTIONS(SLOT)
    xmlFreeFunc *free;
} library;
#undef SLOT

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready;
static char failure[512];

static void load(void) {
    void *handle = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot load libxml2 (libxml2.so.2): %s", reason ? reason : "not found");
        return;
    }
#define LOOK_UP(name) \
    library.name = (__typeof__(&name))dlsym(handle, #name); \
    if (library.name == NULL) { \
        snprintf(failure, sizeof failure, "libxml2.so.2 has no %s", #name); \
        return; \
    }
    LIBXML2_FUNCTIONS(LOOK_UP)
#undef LOOK_UP
    // `xmlFree` is a variable of libxml2's (the deallocator it was configured with).
    library.free = (xmlFreeFunc *)dlsym(handle, "xmlFree");
    if (library.free == NULL) {
        snprintf(failure, sizeof failure, "libxml2.so.2 has no xmlFree");
        return;
    }
    library.xmlInitParser();
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

const char *vacations_libxml2_load(void) {
    pthread_once(&once, load);
    return __atomic_load_n(&ready, __ATOMIC_ACQUIRE) ? NULL : failure;
}

// Reached only by a call that did not load libxml2 first (or went on after it failed): a
// programming error, which stops the process rather than call through a null pointer.
static void ensure_loaded(const char *name) {
    if (__builtin_expect(__atomic_load_n(&ready, __ATOMIC_ACQUIRE), 1)) return;
    const char *reason = vacations_libxml2_load();
    if (reason == NULL) return;
    fprintf(stderr, "Error: %s called before libxml2 was loaded: %s\n", name, reason);
    fflush(stderr);
    abort();
}

#define FORWARD(result, name, parameters, arguments) \
    result name parameters { \
        ensure_loaded(#name); \
        return library.name arguments; \
    }
#define FORWARD_VOID(name, parameters, arguments) \
    void name parameters { \
        ensure_loaded(#name); \
        library.name arguments; \
    }

void xmlInitParser(void) { ensure_loaded("xmlInitParser"); }
FORWARD(xmlTextReaderPtr, xmlReaderForIO,
        (xmlInputReadCallback ioread, xmlInputCloseCallback ioclose, void *ioctx, const char *URL, const char *encoding, int options),
        (ioread, ioclose, ioctx, URL, encoding, options))
FORWARD(xmlTextReaderPtr, xmlReaderForFile, (const char *filename, const char *encoding, int options), (filename, encoding, options))
FORWARD_VOID(xmlFreeTextReader, (xmlTextReaderPtr reader), (reader))
FORWARD_VOID(xmlTextReaderSetStructuredErrorHandler, (xmlTextReaderPtr reader, xmlStructuredErrorFunc f, void *arg), (reader, f, arg))
FORWARD(int, xmlTextReaderRead, (xmlTextReaderPtr reader), (reader))
FORWARD(int, xmlTextReaderDepth, (xmlTextReaderPtr reader), (reader))
FORWARD(int, xmlTextReaderNodeType, (xmlTextReaderPtr reader), (reader))
FORWARD(int, xmlTextReaderIsEmptyElement, (xmlTextReaderPtr reader), (reader))
FORWARD(const xmlChar *, xmlTextReaderConstLocalName, (xmlTextReaderPtr reader), (reader))
FORWARD(const xmlChar *, xmlTextReaderConstValue, (xmlTextReaderPtr reader), (reader))
FORWARD(int, xmlTextReaderMoveToNextAttribute, (xmlTextReaderPtr reader), (reader))
FORWARD(int, xmlTextReaderMoveToElement, (xmlTextReaderPtr reader), (reader))
FORWARD(xmlChar *, xmlTextReaderGetAttribute, (xmlTextReaderPtr reader, const xmlChar *name), (reader, name))
FORWARD(xmlNodePtr, xmlTextReaderCurrentNode, (xmlTextReaderPtr reader), (reader))
FORWARD(long, xmlGetLineNo, (const xmlNode *node), (node))
FORWARD(xmlParserCtxtPtr, xmlNewParserCtxt, (void), ())
FORWARD_VOID(xmlFreeParserCtxt, (xmlParserCtxtPtr ctxt), (ctxt))
FORWARD(xmlDocPtr, xmlCtxtReadMemory,
        (xmlParserCtxtPtr ctxt, const char *buffer, int size, const char *URL, const char *encoding, int options),
        (ctxt, buffer, size, URL, encoding, options))
FORWARD_VOID(xmlFreeDoc, (xmlDocPtr cur), (cur))
FORWARD(xmlNodePtr, xmlDocGetRootElement, (const xmlDoc *doc), (doc))
FORWARD(xmlChar *, xmlNodeListGetString, (xmlDocPtr doc, const xmlNode *list, int inLine), (doc, list, inLine))

void vacations_xml_free(void *pointer) {
    ensure_loaded("xmlFree");
    (*library.free)(pointer);
}
