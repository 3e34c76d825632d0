// A host-only program in the style of CANN's runtime examples
// (CHECK_ERROR, INFO_LOG): a model running instance built with
// aclmdlRIBuildBegin on two persistent streams bound to it, each closed
// with aclmdlRIEndTask, run with aclmdlRIExecute and aclmdlRIExecuteAsync;
// then labels and aclrtSwitchLabelByIndex choosing a branch by an index
// in device memory (changed between executions, and out of range), the
// debug prints, a refused switch outside a model, unbinding and teardown.
// It checks every result and exits non-zero on the first mismatch; the
// last line is "models: ok". C++11.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "acl/acl.h"

#define INFO_LOG(fmt, ...) fprintf(stdout, "[INFO]  " fmt "\n", ##__VA_ARGS__)
#define ERROR_LOG(fmt, ...) fprintf(stderr, "[ERROR] " fmt "\n", ##__VA_ARGS__)
#define CHECK_ERROR(call)                                                           \
    do {                                                                            \
        aclError ret_ = (call);                                                     \
        if (ret_ != ACL_SUCCESS) {                                                  \
            const char* msg_ = aclGetRecentErrMsg();                                \
            ERROR_LOG("%s failed: %d (%s)", #call, ret_, msg_ ? msg_ : "");          \
            exit(1);                                                                \
        }                                                                           \
    } while (0)
#define EXPECT(cond)                                            \
    do {                                                        \
        if (!(cond)) {                                          \
            ERROR_LOG("line %d: expected %s", __LINE__, #cond); \
            exit(1);                                            \
        }                                                       \
    } while (0)

namespace {
std::vector<uint8_t> Read(void* dev, size_t n)
{
    std::vector<uint8_t> v(n);
    CHECK_ERROR(aclrtMemcpy(v.data(), n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

void SetIndex(void* dev, uint32_t i)
{
    CHECK_ERROR(aclrtMemcpy(dev, sizeof(i), &i, sizeof(i), ACL_MEMCPY_HOST_TO_DEVICE));
}

bool All(const std::vector<uint8_t>& v, size_t from, size_t to, uint8_t b)
{
    for (size_t i = from; i < to; ++i) {
        if (v[i] != b) {
            return false;
        }
    }
    return true;
}
}  // namespace

int main()
{
    const int32_t deviceId = 0;
    const size_t size = 256;
    CHECK_ERROR(aclInit(nullptr));
    CHECK_ERROR(aclrtSetDevice(deviceId));
    aclrtContext context = nullptr;
    CHECK_ERROR(aclrtCreateContext(&context, deviceId));

    aclrtStream first = nullptr;
    aclrtStream second = nullptr;
    aclrtStream executeStream = nullptr;
    CHECK_ERROR(aclrtCreateStreamWithConfig(&first, 0x00U, ACL_STREAM_PERSISTENT));
    CHECK_ERROR(aclrtCreateStreamWithConfig(&second, 0x00U, ACL_STREAM_PERSISTENT));
    CHECK_ERROR(aclrtCreateStream(&executeStream));

    void* devA = nullptr;
    void* devB = nullptr;
    void* devC = nullptr;
    CHECK_ERROR(aclrtMalloc(&devA, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&devB, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&devC, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemset(devA, size, 0, size));
    CHECK_ERROR(aclrtMemset(devB, size, 0, size));
    CHECK_ERROR(aclrtMemset(devC, size, 0, size));

    // 1. Two bound streams: their tasks go into the model, not run.
    aclmdlRI model = nullptr;
    CHECK_ERROR(aclmdlRIBuildBegin(&model, 0x00U));
    CHECK_ERROR(aclmdlRIBindStream(model, first, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_ERROR(aclmdlRIBindStream(model, second, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_ERROR(aclrtMemsetAsync(devA, size, 0x5a, size, first));
    CHECK_ERROR(aclrtMemsetAsync(devB, size, 0x3c, size, second));
    CHECK_ERROR(aclrtMemcpyAsync(devC, size, devB, size, ACL_MEMCPY_DEVICE_TO_DEVICE, second));
    CHECK_ERROR(aclmdlRIEndTask(model, first));
    CHECK_ERROR(aclmdlRIEndTask(model, second));
    CHECK_ERROR(aclmdlRIBuildEnd(model, nullptr));
    EXPECT(All(Read(devA, size), 0, size, 0));
    INFO_LOG("model built; nothing ran yet");
    CHECK_ERROR(aclmdlRIExecute(model, -1));
    EXPECT(All(Read(devA, size), 0, size, 0x5a));
    EXPECT(All(Read(devC, size), 0, size, 0x3c));
    CHECK_ERROR(aclrtMemset(devA, size, 0, size));
    CHECK_ERROR(aclmdlRIExecuteAsync(model, executeStream));
    CHECK_ERROR(aclrtSynchronizeStream(executeStream));
    EXPECT(All(Read(devA, size), 0, size, 0x5a));
    INFO_LOG("model executed twice");
    CHECK_ERROR(aclmdlRIUnbindStream(model, first));
    CHECK_ERROR(aclmdlRIUnbindStream(model, second));
    CHECK_ERROR(aclmdlRIDestroy(model));

    // 2. Labels: switch(index) -> [label0, label1]; label0: A = 0x11,
    // goto end; label1: B = 0x22; end: C = 0x33.
    const uint32_t labelCount = 2;
    aclrtLabel labels[labelCount] = {nullptr, nullptr};
    aclrtLabel endLabel = nullptr;
    aclrtLabelList labelList = nullptr;
    aclrtLabelList endList = nullptr;
    for (uint32_t i = 0; i < labelCount; ++i) {
        CHECK_ERROR(aclrtCreateLabel(&labels[i]));
    }
    CHECK_ERROR(aclrtCreateLabel(&endLabel));
    CHECK_ERROR(aclrtCreateLabelList(labels, labelCount, &labelList));
    CHECK_ERROR(aclrtCreateLabelList(&endLabel, 1, &endList));
    void* branchIndex = nullptr;
    void* zeroIndex = nullptr;
    CHECK_ERROR(aclrtMalloc(&branchIndex, sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMalloc(&zeroIndex, sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
    SetIndex(zeroIndex, 0);

    // Outside a model a switch is refused.
    EXPECT(aclrtSwitchLabelByIndex(branchIndex, labelCount, labelList, executeStream) ==
           ACL_ERROR_RT_STREAM_MODEL);

    aclmdlRI labelModel = nullptr;
    CHECK_ERROR(aclmdlRIBuildBegin(&labelModel, 0x00U));
    CHECK_ERROR(aclmdlRIBindStream(labelModel, first, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_ERROR(aclrtSwitchLabelByIndex(branchIndex, labelCount, labelList, first));
    CHECK_ERROR(aclrtSetLabel(labels[0], first));
    CHECK_ERROR(aclrtMemsetAsync(devA, size, 0x11, size, first));
    CHECK_ERROR(aclrtSwitchLabelByIndex(zeroIndex, 1, endList, first));
    CHECK_ERROR(aclrtSetLabel(labels[1], first));
    CHECK_ERROR(aclrtMemsetAsync(devB, size, 0x22, size, first));
    CHECK_ERROR(aclrtSetLabel(endLabel, first));
    CHECK_ERROR(aclrtMemsetAsync(devC, size, 0x33, size, first));
    CHECK_ERROR(aclmdlRIEndTask(labelModel, first));
    CHECK_ERROR(aclmdlRIBuildEnd(labelModel, nullptr));
    CHECK_ERROR(aclmdlRIDebugPrint(labelModel));
    CHECK_ERROR(aclmdlRIDebugJsonPrint(labelModel, "models_debug.json", ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
    FILE* f = fopen("models_debug.json", "r");
    EXPECT(f != nullptr);
    char buf[64] = {0};
    EXPECT(fread(buf, 1, 15, f) == 15);
    fclose(f);
    remove("models_debug.json");
    EXPECT(strncmp(buf, "{\"traceEvents\"", 14) == 0);

    const uint32_t indices[] = {1, 0, 7};
    const uint8_t expectA[] = {0x00, 0x11, 0x00};
    const uint8_t expectB[] = {0x22, 0x00, 0x22};
    for (int run = 0; run < 3; ++run) {
        CHECK_ERROR(aclrtMemset(devA, size, 0, size));
        CHECK_ERROR(aclrtMemset(devB, size, 0, size));
        CHECK_ERROR(aclrtMemset(devC, size, 0, size));
        SetIndex(branchIndex, indices[run]);
        CHECK_ERROR(aclmdlRIExecuteAsync(labelModel, executeStream));
        CHECK_ERROR(aclrtSynchronizeStream(executeStream));
        EXPECT(All(Read(devA, size), 0, size, expectA[run]));
        EXPECT(All(Read(devB, size), 0, size, expectB[run]));
        EXPECT(All(Read(devC, size), 0, size, 0x33));
        INFO_LOG("index %u: branch %d ran", indices[run], expectA[run] != 0 ? 0 : 1);
    }

    CHECK_ERROR(aclmdlRIUnbindStream(labelModel, first));
    EXPECT(aclmdlRIUnbindStream(labelModel, first) == ACL_ERROR_RT_STREAM_MODEL);
    CHECK_ERROR(aclmdlRIDestroy(labelModel));
    CHECK_ERROR(aclrtDestroyLabelList(labelList));
    CHECK_ERROR(aclrtDestroyLabelList(endList));
    for (uint32_t i = 0; i < labelCount; ++i) {
        CHECK_ERROR(aclrtDestroyLabel(labels[i]));
    }
    CHECK_ERROR(aclrtDestroyLabel(endLabel));
    CHECK_ERROR(aclrtFree(branchIndex));
    CHECK_ERROR(aclrtFree(zeroIndex));
    CHECK_ERROR(aclrtFree(devA));
    CHECK_ERROR(aclrtFree(devB));
    CHECK_ERROR(aclrtFree(devC));
    CHECK_ERROR(aclrtDestroyStreamForce(executeStream));
    CHECK_ERROR(aclrtDestroyStreamForce(second));
    CHECK_ERROR(aclrtDestroyStreamForce(first));
    CHECK_ERROR(aclrtDestroyContext(context));
    CHECK_ERROR(aclrtResetDeviceForce(deviceId));
    CHECK_ERROR(aclFinalize());
    printf("models: ok\n");
    return 0;
}
