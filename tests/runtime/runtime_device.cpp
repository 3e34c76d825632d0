// A host-only program in the style of CANN's runtime examples (CHECK_ERROR,
// INFO_LOG): the device, system and synchronisation extras (init and
// finalize callbacks, device identity, timeouts, system parameters,
// notifies, compute groups, snapshots), each with a misuse. It checks every
// result and exits non-zero on the first mismatch; the last line is
// "runtime_device: ok". Needs two devices (NPU_SIM_DEVICES=2). C++11.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
int g_inits = 0;
int g_finis = 0;
int g_stages = 0;

aclError OnInit(const char*, size_t, void* data)
{
    EXPECT(data == &g_inits);
    ++g_inits;
    return ACL_SUCCESS;
}

aclError OnFini(void* data)
{
    EXPECT(data == &g_finis);
    ++g_finis;
    return ACL_SUCCESS;
}

uint32_t OnStage(int32_t deviceId, void*)
{
    EXPECT(deviceId == 0);
    ++g_stages;
    return 0;
}

void Identity()
{
    uint32_t count = 0;
    CHECK_ERROR(aclrtGetDeviceCount(&count));
    for (int32_t d = 0; d < static_cast<int32_t>(count); ++d) {
        int32_t logic = -1, user = -1, phy = -1, back = -1;
        CHECK_ERROR(aclrtGetLogicDevIdByUserDevId(d, &logic));
        CHECK_ERROR(aclrtGetUserDevIdByLogicDevId(logic, &user));
        CHECK_ERROR(aclrtGetPhyDevIdByUserDevId(d, &phy));
        CHECK_ERROR(aclrtGetUserDevIdByPhyDevId(phy, &back));
        EXPECT(user == d && back == d);
        char bus[64] = {};
        CHECK_ERROR(aclrtDeviceGetPCIBusId(d, bus, static_cast<int32_t>(sizeof(bus))));
        int32_t fromBus = -1;
        CHECK_ERROR(aclrtDeviceGetByPCIBusId(bus, &fromBus));
        EXPECT(fromBus == d);
    }
    aclrtUuid a, b;
    CHECK_ERROR(aclrtDeviceGetUuid(0, &a));
    CHECK_ERROR(aclrtDeviceGetUuid(1, &b));
    EXPECT(memcmp(a.bytes, b.bytes, sizeof(a.bytes)) != 0);
    EXPECT(aclrtDeviceGetUuid(static_cast<int32_t>(count), &a) == ACL_ERROR_RT_INVALID_DEVICEID);
    char tiny[4];
    EXPECT(aclrtDeviceGetPCIBusId(0, tiny, 4) == ACL_ERROR_INVALID_PARAM);
    INFO_LOG("device identity: ok");
}

void Timeouts()
{
    uint64_t interval = 0, actual = 0;
    CHECK_ERROR(aclrtGetOpTimeOutInterval(&interval));
    EXPECT(interval > 0);
    CHECK_ERROR(aclrtSetOpExecuteTimeOutV2(interval + 1, &actual));
    EXPECT(actual == 2 * interval);
    uint32_t ms = 0;
    CHECK_ERROR(aclrtGetOpExecuteTimeout(&ms));
    EXPECT(ms == 2 * interval / 1000);
    CHECK_ERROR(aclrtSetOpExecuteTimeOut(0));
    CHECK_ERROR(aclrtSetOpWaitTimeout(5));
    CHECK_ERROR(aclrtSynchronizeDeviceWithTimeout(1000));
    EXPECT(aclrtSynchronizeDeviceWithTimeout(0) == ACL_ERROR_INVALID_PARAM);
    INFO_LOG("timeouts: ok");
}

void SysParams()
{
    int64_t value = -1;
    CHECK_ERROR(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
    CHECK_ERROR(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    EXPECT(value == 1);
    aclrtContext ctx = nullptr;
    CHECK_ERROR(aclrtCreateContext(&ctx, 0));
    CHECK_ERROR(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
    CHECK_ERROR(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    EXPECT(value == 0);
    CHECK_ERROR(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
    EXPECT(value == 1);
    CHECK_ERROR(aclrtDestroyContext(ctx));
    CHECK_ERROR(aclrtSetDevice(0));
    int32_t active = 0;
    CHECK_ERROR(aclrtGetPrimaryCtxState(0, nullptr, &active));
    EXPECT(active == 1);
    CHECK_ERROR(aclrtGetPrimaryCtxState(1, nullptr, &active));
    EXPECT(active == 0);
    CHECK_ERROR(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
    INFO_LOG("system parameters: ok");
}

void Notifies()
{
    aclrtStream producer = nullptr, consumer = nullptr;
    CHECK_ERROR(aclrtCreateStream(&producer));
    CHECK_ERROR(aclrtCreateStream(&consumer));
    aclrtNotify notify = nullptr;
    CHECK_ERROR(aclrtCreateNotify(&notify, ACL_NOTIFY_DEFAULT));
    uint32_t id = 0, again = 1;
    CHECK_ERROR(aclrtGetNotifyId(notify, &id));
    const size_t size = 256;
    void* dev = nullptr;
    void* host = nullptr;
    CHECK_ERROR(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMallocHost(&host, size));
    for (int round = 0; round < 3; ++round) {
        memset(host, round + 1, size);
        CHECK_ERROR(aclrtMemcpyAsync(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, producer));
        CHECK_ERROR(aclrtRecordNotify(notify, producer));
        CHECK_ERROR(aclrtWaitAndResetNotify(notify, consumer, 0));
        CHECK_ERROR(aclrtMemcpyAsync(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
        CHECK_ERROR(aclrtSynchronizeStream(producer));
        CHECK_ERROR(aclrtSynchronizeStream(consumer));
        EXPECT(static_cast<unsigned char*>(host)[size - 1] == round + 1);
        CHECK_ERROR(aclrtNotifyBatchReset(&notify, 1));
        CHECK_ERROR(aclrtGetNotifyId(notify, &again));
        EXPECT(again == id);
    }
    CHECK_ERROR(aclrtDestroyNotify(notify));
    EXPECT(aclrtRecordNotify(notify, producer) == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtFree(dev));
    CHECK_ERROR(aclrtFreeHost(host));
    CHECK_ERROR(aclrtDestroyStream(producer));
    CHECK_ERROR(aclrtDestroyStream(consumer));
    INFO_LOG("notifies: ok");
}

void GroupsAndSnapshots()
{
    // The default SoC is an A2: no compute groups, as CANN documents.
    uint32_t groups = 0;
    EXPECT(aclrtGetGroupCount(&groups) == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtCreateGroupInfo() == nullptr);
    CHECK_ERROR(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_LOCK_PRE, OnStage, nullptr));
    CHECK_ERROR(aclrtSnapShotCallbackRegister(ACL_RT_SNAPSHOT_RESTORE_POST, OnStage, nullptr));
    void* dev = nullptr;
    uint32_t word = 7;
    CHECK_ERROR(aclrtMalloc(&dev, sizeof(word), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ERROR(aclrtMemcpy(dev, sizeof(word), &word, sizeof(word), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtSnapShotProcessLock());
    CHECK_ERROR(aclrtSnapShotProcessBackup());
    word = 9;
    CHECK_ERROR(aclrtMemcpy(dev, sizeof(word), &word, sizeof(word), ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ERROR(aclrtSnapShotProcessRestore());
    CHECK_ERROR(aclrtSnapShotProcessUnlock());
    EXPECT(aclrtSnapShotProcessRestore() == ACL_ERROR_INVALID_PARAM);
    CHECK_ERROR(aclrtMemcpy(&word, sizeof(word), dev, sizeof(word), ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(word == 7);
    EXPECT(g_stages == 2);
    CHECK_ERROR(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_LOCK_PRE, OnStage));
    CHECK_ERROR(aclrtSnapShotCallbackUnregister(ACL_RT_SNAPSHOT_RESTORE_POST, OnStage));
    CHECK_ERROR(aclrtFree(dev));
    INFO_LOG("groups and snapshots: ok");
}
} // namespace

int main()
{
    CHECK_ERROR(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, OnInit, &g_inits));
    CHECK_ERROR(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, OnFini, &g_finis));
    CHECK_ERROR(aclInit(nullptr));
    EXPECT(g_inits == 1);
    EXPECT(aclInit(nullptr) == ACL_ERROR_REPEAT_INITIALIZE);
    CHECK_ERROR(aclrtSetDevice(0));
    Identity();
    Timeouts();
    SysParams();
    Notifies();
    GroupsAndSnapshots();
    CHECK_ERROR(aclrtResetDeviceForce(0));
    uint64_t left = 0;
    CHECK_ERROR(aclFinalizeReference(&left));
    EXPECT(left == 1 && g_finis == 0);
    CHECK_ERROR(aclFinalizeReference(&left));
    EXPECT(left == 0 && g_finis == 1);
    EXPECT(aclFinalizeReference(nullptr) == ACL_ERROR_REPEAT_FINALIZE);
    CHECK_ERROR(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, OnFini));
    CHECK_ERROR(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, OnInit));
    INFO_LOG("lifecycle: ok");
    printf("runtime_device: ok\n");
    return 0;
}
