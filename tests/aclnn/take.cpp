// aclnnTake in the style of CANN's sample: a [4, 2] float self read flat
// and an int64 [2, 2] index (CANN's sample), then int32 indices into a
// transposed self, an index past the end (a fault at synchronisation) and
// the first phase's rules (docs/ops.md §26).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_take.h"
#include "common.h"

static int RunTake(const aclTensor* self, const aclTensor* index, aclTensor* out, aclrtStream stream, aclError* sync)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    auto ret = aclnnTakeGetWorkspaceSize(self, index, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnTakeGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnTake(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnTake failed. ERROR: %d\n", ret); return ret);
    *sync = aclrtSynchronizeStream(stream);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 1. CANN's sample: self [4, 2], index [[4, 1], [0, 5]].
    std::vector<int64_t> selfShape = {4, 2}, indexShape = {2, 2}, outShape = {2, 2};
    std::vector<float> selfHostData = {0, 1.123, -2.001, 303.45, 40009, -50.1234, 60.666, -7.6543};
    std::vector<int64_t> indexHostData = {4, 1, 0, 5};
    std::vector<float> outHostData(4, 0);
    void *selfDeviceAddr = nullptr, *indexDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *index = nullptr, *out = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(indexHostData, indexShape, &indexDeviceAddr, aclDataType::ACL_INT64, &index);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclError sync = 0;
    ret = RunTake(self, index, out, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("sample failed: %d %d\n", ret, sync); return 1);
    std::vector<float> resultData(4, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    for (int64_t i = 0; i < 4; i++) {
        const float want = selfHostData[indexHostData[i]];
        LOG_PRINT("result[%ld] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want, LOG_PRINT("should be %f\n", want); return 1);
    }

    // 2. A [2, 4] view of self's storage with strides {1, 2}, read in its
    //    logical order: flat index k is [k / 4][k % 4]; int32 indices {1, 6, 3}.
    std::vector<int64_t> tShape = {2, 4}, tStrides = {1, 2}, tStorage = {8};
    aclTensor* selfT = aclCreateTensor(tShape.data(), tShape.size(), aclDataType::ACL_FLOAT, tStrides.data(), 0,
                                       aclFormat::ACL_FORMAT_ND, tStorage.data(), tStorage.size(), selfDeviceAddr);
    void* i32Addr = nullptr;
    aclTensor* i32 = nullptr;
    ret = CreateAclTensor(std::vector<int32_t>{1, 6, 3}, std::vector<int64_t>{3}, &i32Addr, aclDataType::ACL_INT32,
                          &i32);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* o3Addr = nullptr;
    aclTensor* o3 = nullptr;
    ret = CreateAclTensor(std::vector<float>(3, 0), std::vector<int64_t>{3}, &o3Addr, aclDataType::ACL_FLOAT, &o3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunTake(selfT, i32, o3, stream, &sync);
    CHECK_RET(ret == 0 && sync == ACL_SUCCESS, LOG_PRINT("transposed self failed: %d %d\n", ret, sync); return 1);
    std::vector<float> got3(3, 0);
    ret = ReadBack(o3Addr, got3);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // Logical [r][c] lies at storage r + 2c: k=1 -> [0][1] = 2; k=6 -> [1][2] = 5; k=3 -> [0][3] = 6.
    const int storageOf[3] = {2, 5, 6};
    for (int k = 0; k < 3; k++) {
        CHECK_RET(got3[k] == selfHostData[storageOf[k]],
                  LOG_PRINT("transposed[%d] is %f, should be %f\n", k, got3[k], selfHostData[storageOf[k]]);
                  return 1);
    }

    // 3. An index past the end: the gather faults; synchronisation says so.
    void* badAddr = nullptr;
    aclTensor* bad = nullptr;
    ret = CreateAclTensor(std::vector<int64_t>{8}, std::vector<int64_t>{1}, &badAddr, aclDataType::ACL_INT64, &bad);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    void* oneAddr = nullptr;
    aclTensor* one = nullptr;
    ret = CreateAclTensor(std::vector<float>(1, 0), std::vector<int64_t>{1}, &oneAddr, aclDataType::ACL_FLOAT, &one);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = RunTake(self, bad, one, stream, &sync);
    CHECK_RET(ret == 0 && sync != ACL_SUCCESS, LOG_PRINT("index 8 of 8 elements: %d %d\n", ret, sync); return 1);

    // 4. The first phase's rules and codes.
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    ret = aclnnTakeGetWorkspaceSize(self, index, one, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("out [1] for a [2, 2] index: %d\n", ret); return 1);
    ret = aclnnTakeGetWorkspaceSize(self, self, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("float index: %d\n", ret); return 1);
    ret = aclnnTakeGetWorkspaceSize(self, index, nullptr, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null out: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(index);
    aclDestroyTensor(out);
    aclDestroyTensor(selfT);
    aclDestroyTensor(i32);
    aclDestroyTensor(o3);
    aclDestroyTensor(bad);
    aclDestroyTensor(one);
    aclrtFree(selfDeviceAddr);
    aclrtFree(indexDeviceAddr);
    aclrtFree(outDeviceAddr);
    aclrtFree(i32Addr);
    aclrtFree(o3Addr);
    aclrtFree(badAddr);
    aclrtFree(oneAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("take: ok\n");
    return 0;
}
