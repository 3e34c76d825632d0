/*
 * cann_sys.h - the subset of the AscendCL runtime and aclnn C API that
 * npu-ops uses, declared from the project's ABI facts (shared/abi/abi-facts.md).
 *
 * Names, types and numeric values follow CANN's public headers
 * (acl/acl_base_rt.h, acl/acl_rt.h, acl/error_codes/rt_error_codes.h,
 * aclnn/acl_meta.h, aclnn/aclnn_base.h, opdev/op_errno.h and the
 * aclnnop/aclnn_*.h operator headers). This header is the input of bindgen
 * (see ../build.rs and ../../ci/check-bindings.sh); it compiles as C11 and
 * as C++.
 *
 * Each part is marked with the CANN header that declares it
 * (`@cann <path>`; `@cann -`: in no public CANN header): `cann_sys::headers`
 * generates CANN's header layout from these marks (what `npu-ops sim
 * install` writes), so the two cannot drift.
 *
 * Library placement (for the run-time loader):
 *   acl*, aclrt*, aclmdlRI*  libascendcl.so
 *   aclnnInit, aclCreate*,
 *   aclDestroy*, executor    libnnopbase.so
 *   aclnn<Op>*               libopapi_math.so / libopapi_nn.so (CANN >= 8.5),
 *                            else libopapi.so, else libaclnn_ops_infer.so /
 *                            libaclnn_math.so
 *   acllog*                  libascendalog.so (base/acl_log.h)
 */
#ifndef CANN_SYS_H
#define CANN_SYS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Handles and scalar types                                                  */
/* ------------------------------------------------------------------------ */

/* @cann acl/acl_base.h */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef int aclError;
typedef uint16_t aclFloat16;
typedef struct aclDataBuffer aclDataBuffer;
typedef void *aclrtTaskGrp;
typedef void *aclmdlRITask;
typedef void *aclrtLabel;
typedef void *aclrtLabelList;
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

/* @cann aclnn/acl_meta.h */
typedef int32_t aclnnStatus;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalarList aclScalarList;
typedef struct aclOpExecutor aclOpExecutor;

/* ------------------------------------------------------------------------ */
/* Enumerations                                                              */
/* ------------------------------------------------------------------------ */

/* @cann acl/acl_base.h */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41,
    ACL_HIFLOAT4 = 42,
    ACL_HIFLOAT4_SCALE = 43
} aclDataType;

typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;

/* @cann acl/acl_rt.h */
typedef enum {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

typedef enum {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

typedef enum {
    ACL_DDR_MEM = 0,
    ACL_HBM_MEM = 1,
    ACL_DDR_MEM_HUGE = 2,
    ACL_DDR_MEM_NORMAL = 3,
    ACL_HBM_MEM_HUGE = 4,
    ACL_HBM_MEM_NORMAL = 5,
    ACL_DDR_MEM_P2P_HUGE = 6,
    ACL_DDR_MEM_P2P_NORMAL = 7,
    ACL_HBM_MEM_P2P_HUGE = 8,
    ACL_HBM_MEM_P2P_NORMAL = 9,
    ACL_HBM_MEM_HUGE1G = 10,
    ACL_HBM_MEM_P2P_HUGE1G = 11,
    ACL_MEM_NORMAL = 12,
    ACL_MEM_HUGE = 13,
    ACL_MEM_HUGE1G = 14,
    ACL_MEM_P2P_NORMAL = 15,
    ACL_MEM_P2P_HUGE = 16,
    ACL_MEM_P2P_HUGE1G = 17
} aclrtMemAttr;

typedef enum {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

typedef enum {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

typedef enum {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;

typedef enum {
    ACL_CALLBACK_NO_BLOCK = 0,
    ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtHostFunc)(void *args);

typedef void *aclmdlRI;

typedef enum {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2
} aclmdlRICaptureMode;

typedef enum {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2
} aclmdlRICaptureStatus;

typedef enum {
    ACL_MODEL_RI_TASK_DEFAULT = 0,
    ACL_MODEL_RI_TASK_KERNEL = 1,
    ACL_MODEL_RI_TASK_EVENT_RECORD = 2,
    ACL_MODEL_RI_TASK_EVENT_WAIT = 3,
    ACL_MODEL_RI_TASK_EVENT_RESET = 4,
    ACL_MODEL_RI_TASK_VALUE_WRITE = 5,
    ACL_MODEL_RI_TASK_VALUE_WAIT = 6
} aclmdlRITaskType;

#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

#define ACL_EVENT_RECORD_DEFAULT 0x0U
#define ACL_EVENT_RECORD_EXTERNAL 0x01U
#define ACL_EVENT_WAIT_DEFAULT 0x0U
#define ACL_EVENT_WAIT_EXTERNAL 0x01U

#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

#define ACL_PKG_VERSION_MAX_SIZE 128

/* ------------------------------------------------------------------------ */
/* Status codes: aclError base codes (acl_base_rt.h: static const int)      */
/* ------------------------------------------------------------------------ */

/* @cann acl/acl_base.h */
static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE = 100005;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_FILE_MISSING_ATTR = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID = 100008;
static const int ACL_ERROR_INVALID_DUMP_CONFIG = 100009;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID = 100011;
static const int ACL_ERROR_DESERIALIZE_MODEL = 100012;
static const int ACL_ERROR_PARSE_MODEL = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC = 100019;
static const int ACL_ERROR_OP_TYPE_NOT_MATCH = 100020;
static const int ACL_ERROR_OP_INPUT_NOT_MATCH = 100021;
static const int ACL_ERROR_OP_OUTPUT_NOT_MATCH = 100022;
static const int ACL_ERROR_OP_ATTR_NOT_MATCH = 100023;
static const int ACL_ERROR_OP_NOT_FOUND = 100024;
static const int ACL_ERROR_OP_LOAD_FAILED = 100025;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026;
static const int ACL_ERROR_FORMAT_NOT_MATCH = 100027;
static const int ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED = 100028;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED = 100030;
static const int ACL_ERROR_KERNEL_ALREADY_REGISTERED = 100031;
static const int ACL_ERROR_INVALID_QUEUE_ID = 100032;
static const int ACL_ERROR_REPEAT_SUBSCRIBE = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_NOT_STATIC_AIPP = 100038;
static const int ACL_ERROR_COMPILING_STUB_MODE = 100039;
static const int ACL_ERROR_GROUP_NOT_SET = 100040;
static const int ACL_ERROR_GROUP_NOT_CREATE = 100041;
static const int ACL_ERROR_PROF_ALREADY_RUN = 100042;
static const int ACL_ERROR_PROF_NOT_RUN = 100043;
static const int ACL_ERROR_DUMP_ALREADY_RUN = 100044;
static const int ACL_ERROR_DUMP_NOT_RUN = 100045;
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT = 148047;
static const int ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG = 148048;
static const int ACL_ERROR_INVALID_OPP_PATH = 148049;
static const int ACL_ERROR_OP_UNSUPPORTED_DYNAMIC = 148050;
static const int ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED = 148051;
static const int ACL_ERROR_UNSUPPORTED_JPEG = 148052;
static const int ACL_ERROR_INVALID_BUNDLE_MODEL_ID = 148053;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED = 200007;
static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;
static const int ACL_ERROR_INVALID_EXCEPTION_INFO = -1;

/* @cann acl/error_codes/rt_error_codes.h */
/* ------------------------------------------------------------------------ */
/* Status codes: runtime (rt_error_codes.h: #define)                         */
/* ------------------------------------------------------------------------ */

#define ACL_RT_SUCCESS                               0
#define ACL_ERROR_RT_PARAM_INVALID                   107000
#define ACL_ERROR_RT_INVALID_DEVICEID                107001
#define ACL_ERROR_RT_CONTEXT_NULL                    107002
#define ACL_ERROR_RT_STREAM_CONTEXT                  107003
#define ACL_ERROR_RT_MODEL_CONTEXT                   107004
#define ACL_ERROR_RT_STREAM_MODEL                    107005
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID         107006
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL        107007
#define ACL_ERROR_RT_ADDR_UNALIGNED                  107008
#define ACL_ERROR_RT_FILE_OPEN                       107009
#define ACL_ERROR_RT_FILE_WRITE                      107010
#define ACL_ERROR_RT_STREAM_SUBSCRIBE                107011
#define ACL_ERROR_RT_THREAD_SUBSCRIBE                107012
#define ACL_ERROR_RT_GROUP_NOT_SET                   107013
#define ACL_ERROR_RT_GROUP_NOT_CREATE                107014
#define ACL_ERROR_RT_STREAM_NO_CB_REG                107015
#define ACL_ERROR_RT_INVALID_MEMORY_TYPE             107016
#define ACL_ERROR_RT_INVALID_HANDLE                  107017
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE             107018
#define ACL_ERROR_RT_WAIT_TIMEOUT                    107019
#define ACL_ERROR_RT_TASK_TIMEOUT                    107020
#define ACL_ERROR_RT_SYSPARAMOPT_NOT_SET             107021
#define ACL_ERROR_RT_DEVICE_TASK_ABORT               107022
#define ACL_ERROR_RT_STREAM_ABORT                    107023
#define ACL_ERROR_RT_CAPTURE_DEPENDENCY              107024
#define ACL_ERROR_RT_STREAM_UNJOINED                 107025
#define ACL_ERROR_RT_MODEL_CAPTURED                  107026
#define ACL_ERROR_RT_STREAM_CAPTURED                 107027
#define ACL_ERROR_RT_EVENT_CAPTURED                  107028
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED             107029
#define ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT        107030
#define ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT         107031
#define ACL_ERROR_STREAM_CAPTURE_CONFLICT            107032
#define ACL_ERROR_STREAM_TASK_GROUP_STATUS           107033
#define ACL_ERROR_STREAM_TASK_GROUP_INTR             107034
#define ACL_ERROR_RT_TASK_ABORT_STOP                 107035
#define ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED        107036
#define ACL_ERROR_RT_MODEL_RUNNING                   107037
#define ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD     107038
#define ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY        107039
#define ACL_ERROR_RT_MODEL_UPDATE_FAILED             107040
#define ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC        107041
#define ACL_ERROR_RT_SYMBOL_NOT_FOUND                107042
#define ACL_ERROR_RT_INVALID_SYMBOL                  107043
#define ACL_ERROR_RT_INVALID_DEVICE_FUNCTION         107044
#define ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING       107045
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT             207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION               207001
#define ACL_ERROR_RT_MEMORY_FREE                     207002
#define ACL_ERROR_RT_AICORE_OVER_FLOW                207003
#define ACL_ERROR_RT_NO_DEVICE                       207004
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL             207005
#define ACL_ERROR_RT_NO_PERMISSION                   207006
#define ACL_ERROR_RT_NO_EVENT_RESOURCE               207007
#define ACL_ERROR_RT_NO_STREAM_RESOURCE              207008
#define ACL_ERROR_RT_NO_NOTIFY_RESOURCE              207009
#define ACL_ERROR_RT_NO_MODEL_RESOURCE               207010
#define ACL_ERROR_RT_NO_CDQ_RESOURCE                 207011
#define ACL_ERROR_RT_OVER_LIMIT                      207012
#define ACL_ERROR_RT_QUEUE_EMPTY                     207013
#define ACL_ERROR_RT_QUEUE_FULL                      207014
#define ACL_ERROR_RT_REPEATED_INIT                   207015
#define ACL_ERROR_RT_AIVEC_OVER_FLOW                 207016
#define ACL_ERROR_RT_OVER_FLOW                       207017
#define ACL_ERROR_RT_DEVICE_OOM                      207018
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT_UPDATE_OP   207019
#define ACL_ERROR_RT_TIMEOUT                         207020
#define ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED         207021
#define ACL_ERROR_RT_INTERNAL_ERROR                  507000
#define ACL_ERROR_RT_TS_ERROR                        507001
#define ACL_ERROR_RT_STREAM_TASK_FULL                507002
#define ACL_ERROR_RT_STREAM_TASK_EMPTY               507003
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE             507004
#define ACL_ERROR_RT_END_OF_SEQUENCE                 507005
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE              507006
#define ACL_ERROR_RT_CONTEXT_RELEASE_ERROR           507007
#define ACL_ERROR_RT_SOC_VERSION                     507008
#define ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT           507009
#define ACL_ERROR_RT_LOST_HEARTBEAT                  507010
#define ACL_ERROR_RT_MODEL_EXECUTE                   507011
#define ACL_ERROR_RT_REPORT_TIMEOUT                  507012
#define ACL_ERROR_RT_SYS_DMA                         507013
#define ACL_ERROR_RT_AICORE_TIMEOUT                  507014
#define ACL_ERROR_RT_AICORE_EXCEPTION                507015
#define ACL_ERROR_RT_AICORE_TRAP_EXCEPTION           507016
#define ACL_ERROR_RT_AICPU_TIMEOUT                   507017
#define ACL_ERROR_RT_AICPU_EXCEPTION                 507018
#define ACL_ERROR_RT_AICPU_DATADUMP_RSP_ERR          507019
#define ACL_ERROR_RT_AICPU_MODEL_RSP_ERR             507020
#define ACL_ERROR_RT_PROFILING_ERROR                 507021
#define ACL_ERROR_RT_IPC_ERROR                       507022
#define ACL_ERROR_RT_MODEL_ABORT_NORMAL              507023
#define ACL_ERROR_RT_KERNEL_UNREGISTERING            507024
#define ACL_ERROR_RT_RINGBUFFER_NOT_INIT             507025
#define ACL_ERROR_RT_RINGBUFFER_NO_DATA              507026
#define ACL_ERROR_RT_KERNEL_LOOKUP                   507027
#define ACL_ERROR_RT_KERNEL_DUPLICATE                507028
#define ACL_ERROR_RT_DEBUG_REGISTER_FAIL             507029
#define ACL_ERROR_RT_DEBUG_UNREGISTER_FAIL           507030
#define ACL_ERROR_RT_LABEL_CONTEXT                   507031
#define ACL_ERROR_RT_PROGRAM_USE_OUT                 507032
#define ACL_ERROR_RT_DEV_SETUP_ERROR                 507033
#define ACL_ERROR_RT_VECTOR_CORE_TIMEOUT             507034
#define ACL_ERROR_RT_VECTOR_CORE_EXCEPTION           507035
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_EXCEPTION      507036
#define ACL_ERROR_RT_CDQ_BATCH_ABNORMAL              507037
#define ACL_ERROR_RT_DIE_MODE_CHANGE_ERROR           507038
#define ACL_ERROR_RT_DIE_SET_ERROR                   507039
#define ACL_ERROR_RT_INVALID_DIEID                   507040
#define ACL_ERROR_RT_DIE_MODE_NOT_SET                507041
#define ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW       507042
#define ACL_ERROR_RT_AICORE_TRAP_WRITE_OVERFLOW      507043
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_READ_OVERFLOW  507044
#define ACL_ERROR_RT_VECTOR_CORE_TRAP_WRITE_OVERFLOW 507045
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT             507046
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT              507047
#define ACL_ERROR_RT_FFTS_PLUS_TIMEOUT               507048
#define ACL_ERROR_RT_FFTS_PLUS_EXCEPTION             507049
#define ACL_ERROR_RT_FFTS_PLUS_TRAP_EXCEPTION        507050
#define ACL_ERROR_RT_SEND_MSG                        507051
#define ACL_ERROR_RT_COPY_DATA                       507052
#define ACL_ERROR_RT_DEVICE_MEM_ERROR                507053
#define ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR         507054
#define ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR        507055
#define ACL_ERROR_RT_LINK_ERROR                      507056
#define ACL_ERROR_RT_SUSPECT_REMOTE_ERROR            507057
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR              507899
#define ACL_ERROR_RT_AICPU_INTERNAL_ERROR            507900
#define ACL_ERROR_RT_SOCKET_CLOSE                    507901
#define ACL_ERROR_RT_AICPU_INFO_LOAD_RSP_ERR         507902
#define ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED      507903
#define ACL_ERROR_RT_COMM_OP_RETRY_FAIL              507904
#define ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT              507905
#define ACL_ERROR_SNAPSHOT_LOCK_FAILED               507906
#define ACL_ERROR_SNAPSHOT_UNLOCK_FAILED             507907
#define ACL_ERROR_SNAPSHOT_BACKUP_FAILED             507908
#define ACL_ERROR_SNAPSHOT_RESTORE_FAILED            507909
#define ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED     507910
#define ACL_ERROR_HOST_MEMORY_NOT_REGISTERED         507911
#define ACL_ERROR_SNAPSHOT_CALLBACK_FAILED           507912
#define ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED  507913
#define ACL_ERROR_RT_L3_PORT_ERROR                   507914
#define ACL_ERROR_RT_CCU_TIMEOUT                     507915
#define ACL_ERROR_RT_CCU_EXCEPTION                   507916

/* @cann - */
/* ------------------------------------------------------------------------ */
/* Status codes: aclnn (op_errno.h: #define)                                 */
/* ------------------------------------------------------------------------ */

#define ACLNN_SUCCESS                                0
#define ACLNN_ERR_PARAM_NULLPTR                      161001
#define ACLNN_ERR_PARAM_INVALID                      161002
#define ACLNN_ERR_RUNTIME_ERROR                      361001
#define ACLNN_ERR_INNER                              561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR             561001
#define ACLNN_ERR_INNER_TILING_ERROR                 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR            561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR              561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR           561102
#define ACLNN_ERR_INNER_NULLPTR                      561103
#define ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE         561104
#define ACLNN_ERR_INNER_KEY_CONFILICT                561105
#define ACLNN_ERR_INNER_KEY_CONFLICT                 561105
#define ACLNN_ERR_INNER_INVALID_IMPL_MODE            561106
#define ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND           561107
#define ACLNN_ERR_INNER_LOAD_JSON_FAILED             561108
#define ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND         561109
#define ACLNN_ERR_INNER_JSON_FORMAT_INVALID          561110
#define ACLNN_ERR_INNER_JSON_DTYPE_INVALID           561111
#define ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND     561112
#define ACLNN_ERR_INNER_OP_FILE_INVALID              561113
#define ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND        561114
#define ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH          561115
#define ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE  561116
#define ACLNN_ERR_INNER_INPUT_JSON_IS_NULL           561117
#define ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID     561118
#define ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID     561119

/* @cann acl/acl_rt.h */
/* ------------------------------------------------------------------------ */
/* AscendCL runtime (libascendcl.so)                                        */
/* ------------------------------------------------------------------------ */

aclError aclInit(const char *configPath);
aclError aclFinalize(void);
const char *aclGetRecentErrMsg(void);
aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream);
aclError aclrtProcessReport(int32_t timeout);
aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
aclError aclrtDestroyContext(aclrtContext context);
aclError aclrtSetCurrentContext(aclrtContext context);
aclError aclrtGetCurrentContext(aclrtContext *context);
aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);

aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtResetDeviceForce(int32_t deviceId);
aclError aclrtGetDevice(int32_t *deviceId);
aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
aclError aclrtGetRunMode(aclrtRunMode *runMode);
aclError aclrtGetDeviceCount(uint32_t *count);
aclError aclrtSynchronizeDevice(void);

aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtDestroyStreamForce(aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                      uint32_t flag);

aclError aclrtCreateEvent(aclrtEvent *event);
aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
aclError aclrtDestroyEvent(aclrtEvent event);
aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag);
aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
aclError aclrtSynchronizeEvent(aclrtEvent event);
aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMallocHost(void **hostPtr, size_t size);
aclError aclrtFreeHost(void *hostPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind);
aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream);
aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                aclmdlRI *modelRI);
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);
aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle);
aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);
aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
aclError aclmdlRIDestroy(aclmdlRI modelRI);

/* A model's streams and their tasks (experimental in CANN). */
aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams);
aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks);
aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type);
aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id);

/* Built models (aclmdlRIBuildBegin .. aclmdlRIBuildEnd) and labels. */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL

aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag);
aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags);
aclError aclmdlRIDebugPrint(aclmdlRI modelRI);
aclError aclrtCreateLabel(aclrtLabel *label);
aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
aclError aclrtDestroyLabel(aclrtLabel label);
aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList);
aclError aclrtDestroyLabelList(aclrtLabelList labelList);
aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
                                 aclrtStream stream);

/* @cann acl/acl_base.h */
/* aclrtGetSocName: declared in CANN's acl_base_rt.h (what acl/acl_base.h
 * stands for here); works before aclInit, as CANN's does. */
const char *aclrtGetSocName(void);
size_t aclDataTypeSize(aclDataType dataType);
aclFloat16 aclFloatToFloat16(float value);
float aclFloat16ToFloat(aclFloat16 value);

/* @cann acl/acl_base.h */
/* Data buffers (acl_base_rt.h): a host-side record of an address and a
 * size; creating one needs no aclInit, as CANN's. */
aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/* CANN attributes (acl_base_rt.h): what the installation and the SoC
 * support. */
typedef enum {
    ACL_CANN_ATTR_UNDEFINED = -1,
    ACL_CANN_ATTR_INF_NAN = 0,
    ACL_CANN_ATTR_BF16 = 1,
    ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);

/* @cann acl/acl_rt.h */
/* Error queries: the calling thread's last runtime error code. */
typedef enum {
    ACL_RT_THREAD_LEVEL = 0
} aclrtLastErrLevel;

aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
aclError aclrtGetLastError(aclrtLastErrLevel level);

/* A device error's details (a reserved interface in CANN's reference). */
typedef struct aclrtMemUceInfo {
    void *addr;
    size_t len;
    size_t reserved[14];
} aclrtMemUceInfo;

typedef enum {
    ACL_RT_NO_ERROR = 0,
    ACL_RT_ERROR_MEMORY = 1,
    ACL_RT_ERROR_L2 = 2,
    ACL_RT_ERROR_AICORE = 3,
    ACL_RT_ERROR_LINK = 4,
    ACL_RT_ERROR_OTHERS = 0xFFFF
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
    ACL_RT_AICORE_ERROR_UNKNOWN = 0,
    ACL_RT_AICORE_ERROR_SW = 1,
    ACL_RT_AICORE_ERROR_HW_LOCAL = 2
} aclrtAicoreErrorType;

#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
typedef struct {
    size_t arraySize;
    aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
    aclrtMemUceInfoArray uceInfo;
    aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
    uint8_t tryRepair;
    uint8_t hasDetail;
    uint8_t reserved[2];
    aclrtErrorType errorType;
    aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);

/* Device capabilities and SoC compatibility. */
#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

typedef enum {
    ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
    ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21
} aclrtDevFeatureType;

aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                  int32_t *value);
aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible);

/* Context queries: the compute resources of the calling thread. */
typedef enum {
    ACL_RT_DEV_RES_CUBE_CORE = 0,
    ACL_RT_DEV_RES_VECTOR_CORE = 1
} aclrtDevResLimitType;

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

/* Peer access between devices of the process. */
aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId);
aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* Stream configuration and queries. */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

typedef enum {
    ACL_RT_STREAM_WORK_ADDR_PTR = 0,
    ACL_RT_STREAM_WORK_SIZE = 1,
    ACL_RT_STREAM_FLAG = 2,
    ACL_RT_STREAM_PRIORITY = 3
} aclrtStreamConfigAttr;

struct aclrtStreamConfigHandle {
    void *workptr;
    size_t workSize;
    size_t flag;
    uint32_t priority;
};
typedef struct aclrtStreamConfigHandle aclrtStreamConfigHandle;

aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                 const void *attrValue, size_t valueSize);
aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle);
aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);

/* Stream memory operations: write a 64-bit value, wait for a condition. */
#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000U
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U

aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);
aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);

/* Built-in tasks: an element-wise reduce of device memory into device memory. */
typedef enum {
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13
} aclrtReduceKind;

aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                          aclDataType type, aclrtStream stream, void *reserve);

/* Built-in tasks: random numbers (Philox4x32-10) into device memory. */
typedef struct {
    uint8_t isAddr;
    uint8_t valueOrAddr[8];
    uint8_t size;
    uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
    aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
    aclrtRandomParaInfo min;
    aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
    aclrtRandomParaInfo mean;
    aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
    ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS = 1,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS = 2,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS = 3
} aclrtRandomNumFuncType;

typedef struct {
    aclrtRandomNumFuncType funcType;
    union {
        aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
        aclrtUniformDisInfo uniformDisInfo;
        aclrtNormalDisInfo normalDisInfo;
    } paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct {
    aclDataType dataType;
    aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
    void *randomParaAddr;
    void *randomResultAddr;
    void *randomCounterAddr;
    aclrtRandomParaInfo randomSeed;
    aclrtRandomParaInfo randomNum;
    uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
                             void *reserve);

/* Saturation and overflow. */
typedef enum {
    ACL_RT_OVERFLOW_MODE_SATURATION = 0,
    ACL_RT_OVERFLOW_MODE_INFNAN = 1,
    ACL_RT_OVERFLOW_MODE_UNDEF = 2
} aclrtFloatOverflowMode;

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);
aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);
aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream);
aclError aclrtResetOverflowStatus(aclrtStream stream);

/* @cann acl/acl_rt_allocator.h */
/* A user allocator registered per stream (CANN calls it for single-op and
   dynamic-shape model execution; the simulator stores it). */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size,
                                               aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                          aclrtAllocatorAllocFunc func);
aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                         aclrtAllocatorFreeFunc func);
aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                aclrtAllocatorAllocAdviseFunc func);
aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func);
aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                   aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                   aclrtAllocatorFreeFunc *freeFunc,
                                   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
aclError aclrtAllocatorUnregister(aclrtStream stream);

/* @cann aclnn/aclnn_base.h */
/* ------------------------------------------------------------------------ */
/* aclnn meta API (libnnopbase.so)                                          */
/* ------------------------------------------------------------------------ */

aclnnStatus aclnnInit(const char *configPath);
aclnnStatus aclnnFinalize(void);

/* @cann aclnn/acl_meta.h */
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclnnStatus aclDestroyIntArray(const aclIntArray *array);
aclScalar *aclCreateScalar(void *value, aclDataType dataType);
aclnnStatus aclDestroyScalar(const aclScalar *scalar);
/* Lists own their members: destroying a list destroys them. */
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclnnStatus aclDestroyTensorList(const aclTensorList *array);
aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size);
aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size);
aclnnStatus aclDestroyScalarList(const aclScalarList *array);
aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size);

/* Executor reuse (public since CANN 8.0.RC2). */
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);
aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, size_t index, aclTensor *tensor,
                                  void *addr);
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, size_t index, aclTensor *tensor,
                                   void *addr);

/* @cann - */
/* ------------------------------------------------------------------------ */
/* aclnn operators (libopapi_math.so / libopapi_nn.so / legacy libraries)    */
/* ------------------------------------------------------------------------ */

/* @cann aclnnop/aclnn_slice.h */
aclnnStatus aclnnSliceGetWorkspaceSize(const aclTensor *self, int64_t dim, int64_t start,
                                       int64_t end, int64_t step, aclTensor *out,
                                       uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                       aclrtStream stream);

/* @cann aclnnop/aclnn_index_select.h */
aclnnStatus aclnnIndexSelectGetWorkspaceSize(const aclTensor *self, int64_t dim,
                                             const aclTensor *index, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnIndexSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* @cann aclnnop/aclnn_copy.h */
aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnInplaceCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* @cann aclnnop/aclnn_constant_pad_nd.h */
aclnnStatus aclnnConstantPadNdGetWorkspaceSize(const aclTensor *self, const aclIntArray *pad,
                                               const aclScalar *value, aclTensor *out,
                                               uint64_t *workspaceSize,
                                               aclOpExecutor **executor);
aclnnStatus aclnnConstantPadNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream);

/* @cann aclnnop/aclnn_add.h */
aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     const aclScalar *alpha, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);
aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                            const aclScalar *alpha, uint64_t *workspaceSize,
                                            aclOpExecutor **executor);
aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                            aclrtStream stream);

/* @cann aclnnop/aclnn_mul.h */
aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);
aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor *selfRef, const aclTensor *other,
                                            uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                            aclrtStream stream);

/* @cann aclnnop/aclnn_cat.h */
aclnnStatus aclnnCatGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnCat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     const aclrtStream stream);

/* @cann aclnnop/aclnn_stack.h */
aclnnStatus aclnnStackGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                       uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnStack(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                       const aclrtStream stream);

/* @cann aclnnop/aclnn_fill_scalar.h */
aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef, const aclScalar *value,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);
aclnnStatus aclnnInplaceFillScalar(void *workspace, uint64_t workspaceSize,
                                   aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_zero.h */
aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
aclnnStatus aclnnInplaceZero(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* @cann aclnnop/aclnn_cast.h */
aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                      aclrtStream stream);

/* @cann aclnnop/aclnn_tril.h */
aclnnStatus aclnnTrilGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                      const aclrtStream stream);
aclnnStatus aclnnInplaceTrilGetWorkspaceSize(const aclTensor *selfRef, int64_t diagonal,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnInplaceTril(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             const aclrtStream stream);

/* @cann aclnnop/aclnn_triu.h */
aclnnStatus aclnnTriuGetWorkspaceSize(const aclTensor *self, int64_t diagonal, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnTriu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                      aclrtStream stream);
aclnnStatus aclnnInplaceTriuGetWorkspaceSize(aclTensor *selfRef, int64_t diagonal,
                                             uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnInplaceTriu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* @cann aclnnop/aclnn_split_tensor.h */
aclnnStatus aclnnSplitTensorGetWorkspaceSize(const aclTensor *self, uint64_t splitSections, int64_t dim,
                                             aclTensorList *out, uint64_t *workspaceSize,
                                             aclOpExecutor **executor);
aclnnStatus aclnnSplitTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* @cann aclnnop/aclnn_split_with_size.h */
aclnnStatus aclnnSplitWithSizeGetWorkspaceSize(const aclTensor *self, const aclIntArray *splitSize,
                                               int64_t dim, aclTensorList *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);
aclnnStatus aclnnSplitWithSize(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream);
/* @cann aclnnop/aclnn_reflection_pad1d.h */
aclnnStatus aclnnReflectionPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReflectionPad1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

/* @cann aclnnop/aclnn_reflection_pad2d.h */
aclnnStatus aclnnReflectionPad2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReflectionPad2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

/* @cann aclnnop/aclnn_reflection_pad3d.h */
aclnnStatus aclnnReflectionPad3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReflectionPad3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

/* @cann aclnnop/aclnn_replication_pad1d.h */
aclnnStatus aclnnReplicationPad1dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReplicationPad1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);

/* @cann aclnnop/aclnn_replication_pad2d.h */
aclnnStatus aclnnReplicationPad2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReplicationPad2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);

/* @cann aclnnop/aclnn_replication_pad3d.h */
aclnnStatus aclnnReplicationPad3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnReplicationPad3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);

/* @cann aclnnop/aclnn_circular_pad2d.h */
aclnnStatus aclnnCircularPad2dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnCircularPad2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);

/* @cann aclnnop/aclnn_circular_pad3d.h */
aclnnStatus aclnnCircularPad3dGetWorkspaceSize(const aclTensor *self, const aclIntArray *padding,
                                     aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor);
aclnnStatus aclnnCircularPad3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream);
/* @cann aclnnop/aclnn_permute.h */
aclnnStatus aclnnPermuteGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                         const aclrtStream stream);

/* @cann aclnnop/aclnn_flip.h */
aclnnStatus aclnnFlipGetWorkspaceSize(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnFlip(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_roll.h */
aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnRoll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_expand.h */
aclnnStatus aclnnExpandGetWorkspaceSize(const aclTensor *self, const aclIntArray *size, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnExpand(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_repeat.h */
aclnnStatus aclnnRepeatGetWorkspaceSize(const aclTensor *self, const aclIntArray *repeats, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnRepeat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_embedding.h */
aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor *weight, const aclTensor *indices,
                                           const aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
aclnnStatus aclnnEmbedding(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                           const aclrtStream stream);

/* @cann aclnnop/aclnn_slice_v2.h */
aclnnStatus aclnnSliceV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *starts, const aclIntArray *ends,
                                         const aclIntArray *axes, const aclIntArray *steps, aclTensor *out,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnSliceV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_slice_v3.h */
/* Generated by CANN from the experimental SliceV3 definition (ops.md §31). */
aclnnStatus aclnnSliceV3GetWorkspaceSize(const aclTensor *x, const aclIntArray *begin, const aclIntArray *size,
                                         const aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnSliceV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_strided_slice.h */
aclnnStatus aclnnStridedSliceGetWorkspaceSize(const aclTensor *self, const aclIntArray *begin, const aclIntArray *end,
                                              const aclIntArray *strides, int64_t beginMask, int64_t endMask,
                                              int64_t ellipsisMask, int64_t newAxisMask, int64_t shrinkAxisMask,
                                              aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnStridedSlice(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_as_strided.h */
aclnnStatus aclnnAsStridedGetWorkspaceSize(const aclTensor *x, const aclIntArray *size, const aclIntArray *stride,
                                           const aclIntArray *storageOffset, aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor);
aclnnStatus aclnnAsStrided(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_view_copy.h */
aclnnStatus aclnnViewCopyGetWorkspaceSize(const aclTensor *dst, const aclTensor *dst_size, const aclTensor *dst_stride,
                                          const aclTensor *dst_storage_offset, const aclTensor *src,
                                          const aclTensor *src_size, const aclTensor *src_stride,
                                          const aclTensor *src_storage_offset, const aclTensor *dst_out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnViewCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

/* @cann aclnnop/aclnn_strided_slice_assign_v2.h */
aclnnStatus aclnnStridedSliceAssignV2GetWorkspaceSize(aclTensor *varRef, const aclTensor *inputValue,
                                                      const aclIntArray *begin, const aclIntArray *end,
                                                      const aclIntArray *strides, const aclIntArray *axesOptional,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnStridedSliceAssignV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);
/* @cann aclnnop/aclnn_gather_v2.h */
aclnnStatus aclnnGatherV2GetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                          aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor);
aclnnStatus aclnnGatherV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          aclrtStream stream);

/* @cann aclnnop/aclnn_gather.h */
aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnGather(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                        const aclrtStream stream);

/* @cann aclnnop/aclnn_take.h */
aclnnStatus aclnnTakeGetWorkspaceSize(const aclTensor *self, const aclTensor *index, aclTensor *out,
                                      uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnTake(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                      const aclrtStream stream);

/* @cann aclnnop/aclnn_index_copy.h */
aclnnStatus aclnnIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                           const aclTensor *source, aclTensor *outRef,
                                           uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                           aclrtStream stream);
aclnnStatus aclnnInplaceIndexCopyGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                  const aclTensor *source, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);
aclnnStatus aclnnInplaceIndexCopy(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

/* @cann aclnnop/aclnn_gather_nd.h */
aclnnStatus aclnnGatherNdGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                          bool negativeIndexSupport, aclTensor *out, uint64_t *workspaceSize,
                                          aclOpExecutor **executor);
aclnnStatus aclnnGatherNd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          aclrtStream stream);

/* @cann aclnnop/aclnn_masked_select.h */
aclnnStatus aclnnMaskedSelectGetWorkspaceSize(const aclTensor *self, const aclTensor *mask, aclTensor *out,
                                              uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMaskedSelect(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                              aclrtStream stream);

/* @cann aclnnop/aclnn_index.h */
aclnnStatus aclnnIndexGetWorkspaceSize(const aclTensor *self, const aclTensorList *indices, aclTensor *out,
                                       uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnIndex(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                       const aclrtStream stream);

/* @cann acl/acl_rt.h */
/* More memory calls (docs/runtime.md, "More memory calls"): 32-byte
 * aligned allocation, 32-bit fills, copies through device-resident base
 * pointers, pitched (2D) copies, device attributes. */
typedef enum {
    ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
    ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
    ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
    ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
    ACL_DEV_ATTR_WARP_SIZE = 202,
    ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
    ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
    ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
    ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
    ACL_DEV_ATTR_SMP_ID = 401,
    ACL_DEV_ATTR_PHY_CHIP_ID = 402,
    ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403,
    ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404,
    ACL_DEV_ATTR_SUPER_POD_ID = 405,
    ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406,
    ACL_DEV_ATTR_MAINBOARD_ID = 407,
    ACL_DEV_ATTR_IS_VIRTUAL = 501
} aclrtDevAttr;

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N);
aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                             aclrtStream stream);
aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
                                    const void **src, size_t count, size_t srcDataOffset,
                                    aclrtMemcpyKind kind, aclrtStream stream);
aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind);
aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                            size_t width, size_t height, aclrtMemcpyKind kind,
                            aclrtStream stream);
aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);

/* Batch copies and memcpy descriptors. */
typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE = 1,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
    ACL_MEM_LOCATION_TYPE_MANAGED = 3,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
    uint32_t id;
    aclrtMemLocationType type;
} aclrtMemLocation;

typedef struct {
    aclrtMemLocation dstLoc;
    aclrtMemLocation srcLoc;
    uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                          size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                          size_t numAttrs, size_t *failIndex);
aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                            size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                            size_t numAttrs);
aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                               size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                               size_t *attrsIndexes, size_t numAttrs, size_t *failIndex,
                               aclrtStream stream);
aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                 size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                 size_t *attrsIndexes, size_t numAttrs, aclrtStream stream);
aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize);
aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr,
                            size_t count, void *config);
aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream);

/* Configured allocation and pointer attributes. */
typedef enum {
    ACL_RT_MEM_ATTR_RSV = 0,
    ACL_RT_MEM_ATTR_MODULE_ID = 1,
    ACL_RT_MEM_ATTR_DEVICE_ID = 2,
    ACL_RT_MEM_ATTR_VA_FLAG = 3
} aclrtMallocAttrType;

typedef union {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct {
    aclrtMallocAttrType attr;
    aclrtMallocAttrValue value;
} aclrtMallocAttribute;

typedef struct {
    aclrtMallocAttribute *attrs;
    size_t numAttrs;
} aclrtMallocConfig;

typedef struct aclrtPtrAttributes {
    aclrtMemLocation location;
    uint32_t pageSize;
    uint32_t rsv[4];
} aclrtPtrAttributes;

#define ACL_RT_MEM_TYPE_DEV (0X2U)
#define ACL_RT_MEM_TYPE_DVPP (0X8U)
#define ACL_RT_MEM_TYPE_RSVD (0X10U)

aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                            aclrtMallocConfig *cfg);
aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);
aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                           uint32_t reserve);
aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);
aclError aclrtFreeWithDevSync(void *devPtr);
aclError aclrtFreeHostWithDevSync(void *ptr);

/* Init and finalize callbacks, reference-counted finalisation. */
typedef enum aclRegisterCallbackType {
    ACL_REG_TYPE_ACL_MODEL,
    ACL_REG_TYPE_ACL_OP_EXECUTOR,
    ACL_REG_TYPE_ACL_OP_CBLAS,
    ACL_REG_TYPE_ACL_OP_COMPILER,
    ACL_REG_TYPE_ACL_TDT_CHANNEL,
    ACL_REG_TYPE_ACL_TDT_QUEUE,
    ACL_REG_TYPE_ACL_DVPP,
    ACL_REG_TYPE_ACL_RETR,
    ACL_REG_TYPE_OTHER = 0xFFFF
} aclRegisterCallbackType;

typedef aclError (*aclInitCallbackFunc)(const char *configStr, size_t len, void *userData);
typedef aclError (*aclFinalizeCallbackFunc)(void *userData);

aclError aclFinalizeReference(uint64_t *refCount);
aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                 void *userData);
aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc);
aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc,
                                     void *userData);
aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                       aclFinalizeCallbackFunc cbFunc);

/* @cann acl/acl_rt.h */
/* Device identity: ID mappings, UUID, PCI bus ID. */
typedef struct aclrtUuid {
    char bytes[16];
} aclrtUuid;

aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId);
aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid);
aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId);
aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId);
aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
aclError aclrtDeviceGetPCIBusId(int32_t devId, char *pciBusId, int32_t len);
aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *devId);

/* @cann acl/acl_rt.h */
/* Operator timeouts and a device synchronisation with a timeout. */
aclError aclrtGetOpTimeOutInterval(uint64_t *interval);
aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);
aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);
aclError aclrtSetOpWaitTimeout(uint32_t timeout);
aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);

/* @cann acl/acl_base.h */
/* System parameters (acl_base_rt.h). */
typedef enum {
    ACL_OPT_DETERMINISTIC = 0,
    ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
    ACL_OPT_STRONG_CONSISTENCY = 2
} aclSysParamOpt;

/* @cann acl/acl_rt.h */
/* System parameters per process and per context; the default context. */
aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active);

/* @cann acl/acl_base.h */
typedef void *aclrtNotify;

/* @cann acl/acl_rt.h */
/* Notifies: stream-ordered flags, recorded on one stream, waited for
 * (and reset) on another. */
#define ACL_NOTIFY_DEFAULT 0x00000000U
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001U

aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
aclError aclrtDestroyNotify(aclrtNotify notify);
aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);

/* @cann acl/acl_base.h */
typedef struct aclrtGroupInfo aclrtGroupInfo;

/* @cann acl/acl_rt.h */
/* Compute groups. */
typedef enum aclrtGroupAttr {
    ACL_GROUP_AICORE_INT,
    ACL_GROUP_AIV_INT,
    ACL_GROUP_AIC_INT,
    ACL_GROUP_SDMANUM_INT,
    ACL_GROUP_ASQNUM_INT,
    ACL_GROUP_GROUPID_INT
} aclrtGroupAttr;

aclError aclrtSetGroup(int32_t groupId);
aclError aclrtGetGroupCount(uint32_t *count);
aclrtGroupInfo *aclrtCreateGroupInfo(void);
aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex,
                                 aclrtGroupAttr attr, void *attrValue, size_t valueLen,
                                 size_t *paramRetSize);

/* @cann acl/acl_rt.h */
/* Process snapshots (an experimental feature in CANN). */
typedef enum {
    ACL_RT_SNAPSHOT_LOCK_PRE = 0,
    ACL_RT_SNAPSHOT_BACKUP_PRE,
    ACL_RT_SNAPSHOT_BACKUP_POST,
    ACL_RT_SNAPSHOT_RESTORE_PRE,
    ACL_RT_SNAPSHOT_RESTORE_POST,
    ACL_RT_SNAPSHOT_UNLOCK_POST
} aclrtSnapShotStage;

typedef uint32_t (*aclrtSnapShotCallBack)(int32_t deviceId, void *args);

aclError aclrtSnapShotProcessLock(void);
aclError aclrtSnapShotProcessUnlock(void);
aclError aclrtSnapShotProcessBackup(void);
aclError aclrtSnapShotProcessRestore(void);
aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage, aclrtSnapShotCallBack callback,
                                       void *args);
aclError aclrtSnapShotCallbackUnregister(aclrtSnapShotStage stage,
                                         aclrtSnapShotCallBack callback);

/* @cann acl/acl_rt.h */
/* API injection: tools replace a runtime call's implementation. */
typedef void (*aclrtApiFunc)(void);

aclError aclrtApiInjectionSetFunc(const char *name, aclrtApiFunc func);
aclError aclrtApiInjectionGetFunc(const char *name, aclrtApiFunc *originFunc,
                                  aclrtApiFunc *currentFunc);

/* @cann base/log_types.h */
/* The log library (libascendalog.so): levels, log types and module ids. */
#if defined(_MSC_VER)
#define LOG_FUNC_VISIBILITY _declspec(dllexport)
#else
#define LOG_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

#define DLOG_DEBUG 0x0
#define DLOG_INFO 0x1
#define DLOG_WARN 0x2
#define DLOG_ERROR 0x3
#define DLOG_NULL 0x4

#define DEBUG_LOG_MASK (0x00010000U)
#define SECURITY_LOG_MASK (0x00100000U)
#define RUN_LOG_MASK (0x01000000U)
#define STDOUT_LOG_MASK (0x10000000U)

enum { DLOG_TYPE_DEBUG = 0, DLOG_TYPE_RUN = 1, DLOG_TYPE_MAX };

#define MSG_LENGTH 1024

enum {
    SLOG = 0,
    IDEDD = 1,
    SCC = 2,
    HCCL = 3,
    FMK = 4,
    CCU = 5,
    DVPP = 6,
    RUNTIME = 7,
    CCE = 8,
    HDC = 9,
    DRV = 10,
    NET = 11,
    DEVMM = 22,
    KERNEL = 23,
    LIBMEDIA = 24,
    CCECPU = 25,
    ROS = 27,
    HCCP = 28,
    ROCE = 29,
    TEFUSION = 30,
    PROFILING = 31,
    DP = 32,
    APP = 33,
    TS = 34,
    TSDUMP = 35,
    AICPU = 36,
    LP = 37,
    TDT = 38,
    FE = 39,
    MD = 40,
    MB = 41,
    ME = 42,
    IMU = 43,
    IMP = 44,
    GE = 45,
    CAMERA = 47,
    ASCENDCL = 48,
    TEEOS = 49,
    ISP = 50,
    SIS = 51,
    HSM = 52,
    DSS = 53,
    PROCMGR = 54,
    BBOX = 55,
    AIVECTOR = 56,
    TBE = 57,
    FV = 58,
    TUNE = 60,
    HSS = 61,
    FFTS = 62,
    OP = 63,
    UDF = 64,
    HICAID = 65,
    TSYNC = 66,
    AUDIO = 67,
    TPRT = 68,
    ASCENDCKERNEL = 69,
    ASYS = 70,
    ATRACE = 71,
    RTC = 72,
    SYSMONITOR = 73,
    AML = 74,
    ADETECT = 75,
    INVLID_MOUDLE_ID = 76
};

/* @cann base/acl_log.h */
/* Logging for user modules (ids 0xff00..0xffff) and CANN's (0..0xff), and
 * callbacks that receive the device's log records. The record functions
 * are weak: a program may test them against NULL. */
typedef uintptr_t acllogCallbackHandle;

typedef enum {
    OUTPUT_TYPE_DEBUG = 0,
    OUTPUT_TYPE_RUN = 1,
    OUTPUT_TYPE_BOTH = 2,
    OUTPUT_TYPE_MAX
} acllogOutputLogType;

typedef int32_t (*acllogRecordCallback)(void *userData, uint32_t outputLogType,
                                        const char *logContent, size_t length);

LOG_FUNC_VISIBILITY int32_t acllogRegisterCallback(acllogRecordCallback callbackFunc,
                                                   void *userData, uint32_t outputLogType,
                                                   acllogCallbackHandle *callbackHandle);
LOG_FUNC_VISIBILITY int32_t acllogUnregisterCallback(acllogCallbackHandle callback);
LOG_FUNC_VISIBILITY int32_t acllogCheckDebugLevel(int32_t moduleId, int32_t logLevel) __attribute__((weak));
LOG_FUNC_VISIBILITY void acllogVaList(int32_t moduleId, int32_t level, const char *fmt, va_list list) __attribute__((weak));
LOG_FUNC_VISIBILITY void acllogRecord(int32_t moduleId, int32_t level, const char *fmt, ...) __attribute__((weak));

/* @cann end */
#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CANN_SYS_H */
