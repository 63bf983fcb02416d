<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ko">
<context>
    <name>app.adapter_compare</name>
    <message>
        <source>Δ weight (adapted − base)</source>
        <translation>Δ 가중치 (어댑터 적용 − 기반)</translation>
    </message>
    <message>
        <source>head {head}  ·  max |Δ| {peak}</source>
        <translation>헤드 {head}  ·  최대 |Δ| {peak}</translation>
    </message>
    <message>
        <source>L{layer} head {head}: {query} → {key}</source>
        <translation>L{layer} 헤드 {head}: {query} → {key}</translation>
    </message>
    <message>
        <source>{where}: masked (weight 0 in both)</source>
        <translation>{where}: 마스크됨 (두 모델 모두 가중치 0)</translation>
    </message>
    <message>
        <source>{where}: adapted {adapted}, base {base}, Δ {delta}</source>
        <translation>{where}: 어댑터 적용 {adapted}, 기반 {base}, Δ {delta}</translation>
    </message>
</context>
<context>
    <name>app.adapter_state</name>
    <message>
        <source>{model} already has an adapter: choose its base model to load another</source>
        <translation>{model}에는 이미 어댑터가 붙어 있습니다: 다른 어댑터를 불러오려면 기반 모델을 고르세요</translation>
    </message>
    <message>
        <source>An adapter goes on a bundled model or an own checkpoint: choose one under Model source first</source>
        <translation>어댑터는 내장 모델이나 직접 연 체크포인트에 붙습니다: 먼저 모델 소스에서 하나를 고르세요</translation>
    </message>
    <message>
        <source>{model} goes through transformers: adapters need the app&apos;s own forward</source>
        <translation>{model}은(는) transformers로 실행됩니다: 어댑터에는 앱 자체의 순전파가 필요합니다</translation>
    </message>
    <message>
        <source>loading the adapter {name}…</source>
        <translation>어댑터 {name} 불러오는 중…</translation>
    </message>
</context>
<context>
    <name>app.insight</name>
    <message>
        <source>L{layer} head {head}: {query} → {key} (words)</source>
        <translation>L{layer} 헤드 {head}: {query} → {key} (단어)</translation>
    </message>
    <message>
        <source>{where}: masked</source>
        <translation>{where}: 마스크됨</translation>
    </message>
    <message>
        <source>{where}, weight {weight} (the key word&apos;s pieces summed, the query word&apos;s {n} pieces averaged)</source>
        <translation>{where}, 가중치 {weight} (키 단어의 조각은 합하고, 쿼리 단어의 조각 {n}개는 평균)</translation>
    </message>
</context>
<context>
    <name>app.learned</name>
    <message>
        <source>prev</source>
        <translation>이전</translation>
    </message>
    <message>
        <source>next</source>
        <translation>다음</translation>
    </message>
    <message>
        <source>first</source>
        <translation>처음</translation>
    </message>
    <message>
        <source>ind</source>
        <translation>유도</translation>
    </message>
    <message>
        <source>broad</source>
        <translation>넓음</translation>
    </message>
    <message>
        <source>mix</source>
        <translation>혼합</translation>
    </message>
    <message>
        <source>previous-token</source>
        <translation>이전 토큰</translation>
    </message>
    <message>
        <source>next-token</source>
        <translation>다음 토큰</translation>
    </message>
    <message>
        <source>first-token</source>
        <translation>첫 토큰</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>유도</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>혼합</translation>
    </message>
    <message>
        <source>head {head}  ·  {role} {score}</source>
        <translation>헤드 {head}  ·  {role} {score}</translation>
    </message>
    <message>
        <source>L{layer} head {head}: {query} → {key}</source>
        <translation>L{layer} 헤드 {head}: {query} → {key}</translation>
    </message>
    <message>
        <source>{where}: masked (a padding token)</source>
        <translation>{where}: 마스크됨 (패딩 토큰)</translation>
    </message>
    <message>
        <source>{where}: masked (a decoder cannot look ahead)</source>
        <translation>{where}: 마스크됨 (디코더는 뒤의 토큰을 볼 수 없습니다)</translation>
    </message>
    <message>
        <source>{where}, weight {weight}  ·  {role} {score}</source>
        <translation>{where}, 가중치 {weight}  ·  {role} {score}</translation>
    </message>
    <message>
        <source> +{n} more</source>
        <translation> 외 {n}개</translation>
    </message>
    <message>
        <source>{n} head off ({heads}): </source>
        <translation>헤드 {n}개 끔 ({heads}): </translation>
    </message>
    <message>
        <source>{n} heads off ({heads}): </source>
        <translation>헤드 {n}개 끔 ({heads}): </translation>
    </message>
    <message>
        <source>loss {loss} → {pruned} nats ({change}); next token {a} {pa} → {b} {pb}</source>
        <translation>손실 {loss} → {pruned} nats ({change}); 다음 토큰 {a} {pa} → {b} {pb}</translation>
    </message>
    <message>
        <source>sentence vector&apos;s cosine to the unpruned one {cos}</source>
        <translation>가지치기 전 문장 벡터와의 코사인 유사도 {cos}</translation>
    </message>
</context>
<context>
    <name>app.learned_generation</name>
    <message>
        <source>cache after this step: {cached} positions → {bytes} bytes = 2 × {layers} layers × {heads} heads × {cached} × {d_head} × 4 B.</source>
        <translation>이 단계 후 캐시: 위치 {cached}개 → {bytes}바이트 = 2 × 레이어 {layers}개 × 헤드 {heads}개 × {cached} × {d_head} × 4 B.</translation>
    </message>
    <message>
        <source>cache after this step: {cached} positions → {bytes} bytes = 2 × {layers} layers × {kv} KV heads × {cached} × {d_head} × 4 B.  With one K/V per query head ({heads}) it would be {mha} bytes: grouped-query attention ({heads} query heads share {kv} K/V heads) saves {saving}.</source>
        <translation>이 단계 후 캐시: 위치 {cached}개 → {bytes}바이트 = 2 × 레이어 {layers}개 × KV 헤드 {kv}개 × {cached} × {d_head} × 4 B.  쿼리 헤드마다 K/V를 따로 두면({heads}개) {mha}바이트입니다: 그룹 쿼리 어텐션(쿼리 헤드 {heads}개가 K/V 헤드 {kv}개를 공유)으로 {saving} 절약합니다.</translation>
    </message>
    <message>
        <source>  Compact step ({weights} weights, {precision} matmuls, {read} MB read a step) vs the float32 full causal pass: max |difference| {diff}, tolerance {tolerance}.</source>
        <translation>  압축 단계({weights} 가중치, {precision} 행렬곱, 단계마다 {read} MB 읽음)와 float32 전체 인과 계산 비교: 최대 |차이| {diff}, 허용 오차 {tolerance}.</translation>
    </message>
    <message>
        <source>  Cached step = full causal pass: max |difference| {diff}.</source>
        <translation>  캐시를 쓴 단계 = 전체 인과 계산: 최대 |차이| {diff}.</translation>
    </message>
    <message>
        <source>this step: {cached} MFLOP with the cache, {full} MFLOP recomputing every position (×{ratio}).</source>
        <translation>이 단계: 캐시를 쓰면 {cached} MFLOP, 모든 위치를 다시 계산하면 {full} MFLOP (×{ratio}).</translation>
    </message>
</context>
<context>
    <name>app.learned_kv</name>
    <message>
        <source>chosen by the model</source>
        <translation>모델이 고름</translation>
    </message>
    <message>
        <source>from the sentence</source>
        <translation>문장에서</translation>
    </message>
    <message>
        <source>step {step} / {last}: token “{token}” ({kind}); next token, top 5: {top}</source>
        <translation>단계 {step} / {last}: 토큰 “{token}” ({kind}); 다음 토큰 상위 5개: {top}</translation>
    </message>
    <message>
        <source>FLOPs this step with the cache, all {layers} layers (projections, MLP, attention over {t} keys): {total}</source>
        <translation>캐시를 쓸 때 이 단계의 FLOPs, 레이어 {layers}개 전체 (투영, MLP, 키 {t}개에 대한 어텐션): {total}</translation>
    </message>
    <message>
        <source>FLOPs this step with the cache, all {layers} layers (projections and attention over {t} keys; this model has no MLP): {total}</source>
        <translation>캐시를 쓸 때 이 단계의 FLOPs, 레이어 {layers}개 전체 (투영, 키 {t}개에 대한 어텐션; 이 모델에는 MLP가 없습니다): {total}</translation>
    </message>
    <message>
        <source>FLOPs this step without it (the full {t}-token prefix again): {total}  ({ratio}× the cached step)</source>
        <translation>캐시 없이 이 단계의 FLOPs ({t}토큰 앞부분 전체를 다시 계산): {total}  (캐시 사용 시의 {ratio}배)</translation>
    </message>
    <message>
        <source>cumulative FLOPs — with cache: {cached};  without: {full}</source>
        <translation>누적 FLOPs — 캐시 사용: {cached};  캐시 없이: {full}</translation>
    </message>
    <message>
        <source>compact step ({weights} weights, {precision} matmuls, {read} MB read a step) vs the float32 full causal pass (logits and every layer&apos;s attention row {row}): max |difference| = {diff}, tolerance {tolerance} {mark}</source>
        <translation>압축 단계({weights} 가중치, {precision} 행렬곱, 단계마다 {read} MB 읽음)와 float32 전체 인과 계산(로짓과 모든 층의 어텐션 행 {row}) 비교: 최대 |차이| = {diff}, 허용 오차 {tolerance} {mark}</translation>
    </message>
    <message>
        <source>cached step = full causal pass (logits and every layer&apos;s attention row {row}): max |difference| = {diff} {mark}</source>
        <translation>캐시를 쓴 단계 = 전체 인과 계산 (로짓과 모든 레이어의 어텐션 행 {row}): 최대 |차이| = {diff} {mark}</translation>
    </message>
    <message>
        <source>The KV cache belongs to decoders. {model} is an encoder: it reads the whole sentence at once, every token attending to every other, and never generates token by token, so there is nothing to cache. Choose a decoder (smollm2-135m, or a model trained in the Train tab) or random (course) under Model source.</source>
        <translation>KV 캐시는 디코더의 것입니다. {model}은(는) 인코더입니다: 문장 전체를 한 번에 읽고 모든 토큰이 서로를 보며, 토큰을 하나씩 생성하지 않으므로 캐시할 것이 없습니다. 모델 소스에서 디코더(smollm2-135m 또는 학습 탭에서 학습한 모델)나 무작위(강의)를 고르세요.</translation>
    </message>
</context>
<context>
    <name>app.learned_state</name>
    <message>
        <source>generation needs a decoder: choose smollm2-135m or the trained model as the model source</source>
        <translation>생성에는 디코더가 필요합니다: 모델 소스로 smollm2-135m 또는 학습된 모델을 선택하세요</translation>
    </message>
    <message>
        <source>generating with {model}…</source>
        <translation>{model}(으)로 생성 중…</translation>
    </message>
    <message>
        <source>running {model}…</source>
        <translation>{model} 실행 중…</translation>
    </message>
    <message>
        <source>loading {model}…</source>
        <translation>{model} 불러오는 중…</translation>
    </message>
    <message>
        <source>opening {path}…</source>
        <translation>{path} 여는 중…</translation>
    </message>
</context>
<context>
    <name>app.lora_tuning</name>
    <message>
        <source>LoRA fine-tuning here is for an own checkpoint or SmolLM2: choose one under Model source (the Train tab fine-tunes the course&apos;s model)</source>
        <translation>여기서의 LoRA 미세조정은 직접 가져온 체크포인트나 SmolLM2용입니다: 모델 소스에서 하나를 고르세요 (강의 모델은 학습 탭에서 미세조정합니다)</translation>
    </message>
    <message>
        <source>nothing fine-tuned yet</source>
        <translation>아직 미세조정한 것이 없습니다</translation>
    </message>
    <message>
        <source>save the adapter first</source>
        <translation>먼저 어댑터를 저장하세요</translation>
    </message>
</context>
<context>
    <name>controls.model</name>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>헤드 수</translation>
    </message>
    <message>
        <source>heads divide d_model: {divisors}</source>
        <translation>d_model의 약수인 헤드 수: {divisors}</translation>
    </message>
    <message>
        <source> (more than {limit} need fewer tokens)</source>
        <translation> ({limit}개보다 많으면 토큰을 줄이세요)</translation>
    </message>
    <message>
        <source>d_head = d_model / heads = {numbers}</source>
        <translation>d_head = d_model / 헤드 수 = {numbers}</translation>
    </message>
    <message>
        <source>Any whole number from 0 to {max} (2³² − 1)</source>
        <translation>0부터 {max}(2³² − 1)까지의 정수</translation>
    </message>
    <message>
        <source>New random seed</source>
        <translation>새 무작위 시드</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>시드</translation>
    </message>
</context>
<context>
    <name>controls.options</name>
    <message>
        <source>÷√d_head scaling</source>
        <translation>÷√d_head 스케일링</translation>
    </message>
    <message>
        <source>causal mask (no looking ahead)</source>
        <translation>인과 마스크 (앞을 보지 않음)</translation>
    </message>
    <message>
        <source>add positional encoding</source>
        <translation>위치 인코딩 더하기</translation>
    </message>
    <message>
        <source>torch (loading…)</source>
        <translation>torch (불러오는 중…)</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>가중치 초기화</translation>
    </message>
    <message>
        <source>course: randn × 0.5</source>
        <translation>강의: randn × 0.5</translation>
    </message>
    <message>
        <source>the course&apos;s numbers (Lab 3)</source>
        <translation>강의 자료의 숫자 (Lab 3)</translation>
    </message>
    <message>
        <source>unit: randn / √d_model</source>
        <translation>단위 분산: randn / √d_model</translation>
    </message>
    <message>
        <source>as real models start: q·k has variance d_head, so ÷√d_head brings the scores back to variance 1</source>
        <translation>실제 모델의 초기화: q·k의 분산이 d_head이므로 ÷√d_head로 점수 분산이 다시 1이 됩니다</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>정밀도</translation>
    </message>
    <message>
        <source>float64 (exact)</source>
        <translation>float64 (정확)</translation>
    </message>
    <message>
        <source>teaching numbers to the last digit</source>
        <translation>강의용 숫자를 마지막 자리까지</translation>
    </message>
    <message>
        <source>float32 (fast)</source>
        <translation>float32 (빠름)</translation>
    </message>
    <message>
        <source>about twice as fast at large sizes</source>
        <translation>큰 크기에서 약 두 배 빠름</translation>
    </message>
    <message>
        <source>torch is being loaded in the background</source>
        <translation>torch를 백그라운드에서 불러오는 중입니다</translation>
    </message>
    <message>
        <source>unavailable: {reason}</source>
        <translation>사용할 수 없음: {reason}</translation>
    </message>
    <message>
        <source>auto: numbers in the cells when they fit</source>
        <translation>자동: 칸에 들어갈 때만 숫자 표시</translation>
    </message>
    <message>
        <source>colormap</source>
        <translation>색상표</translation>
    </message>
    <message>
        <source>cell values</source>
        <translation>칸 값</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>자동</translation>
    </message>
    <message>
        <source>on</source>
        <translation>켜기</translation>
    </message>
    <message>
        <source>off</source>
        <translation>끄기</translation>
    </message>
</context>
<context>
    <name>controls.panel</name>
    <message>
        <source>Sentence</source>
        <translation>문장</translation>
    </message>
    <message>
        <source>Padding (click tokens)</source>
        <translation>패딩 (토큰 클릭)</translation>
    </message>
    <message>
        <source>Model size</source>
        <translation>모델 크기</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>난수 시드</translation>
    </message>
    <message>
        <source>Scaling and masks</source>
        <translation>스케일링과 마스크</translation>
    </message>
    <message>
        <source>Backend / device</source>
        <translation>백엔드 / 장치</translation>
    </message>
    <message>
        <source>Display</source>
        <translation>표시</translation>
    </message>
</context>
<context>
    <name>controls.sentence</name>
    <message>
        <source>none (click a token)</source>
        <translation>없음 (토큰을 클릭)</translation>
    </message>
    <message>
        <source>{head}, … {last} ({count} positions)</source>
        <translation>{head}, … {last} (위치 {count}개)</translation>
    </message>
    <message>
        <source>type a sentence; tokens are split on spaces</source>
        <translation>문장을 입력하세요. 토큰은 공백으로 나뉩니다</translation>
    </message>
    <message>
        <source>n = {n} tokens</source>
        <translation>n = 토큰 {n}개</translation>
    </message>
    <message>
        <source>n = {n} token</source>
        <translation>n = 토큰 {n}개</translation>
    </message>
    <message>
        <source>not applied: {message} — the picture still shows the last sentence (n = {n})</source>
        <translation>적용 안 됨: {message} — 그림은 이전 문장 그대로입니다 (n = {n})</translation>
    </message>
    <message>
        <source>padding: {summary}</source>
        <translation>패딩: {summary}</translation>
    </message>
    <message>
        <source> — chips for the first {count} tokens</source>
        <translation> — 처음 {count}개 토큰만 칩으로 표시</translation>
    </message>
    <message>
        <source>token {i} “{token}”: click to mark it as padding (masked as a key)</source>
        <translation>토큰 {i} “{token}”: 클릭하면 패딩으로 표시 (키에서 가려짐)</translation>
    </message>
</context>
<context>
    <name>core</name>
    <message>
        <source>heads</source>
        <translation>헤드 수</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>시드</translation>
    </message>
    <message>
        <source>encoder </source>
        <translation>인코더 </translation>
    </message>
    <message>
        <source>tokens must be a list of strings, got {value}</source>
        <translation>토큰은 문자열 목록이어야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>padding must be a list of token positions, got {value}</source>
        <translation>패딩은 토큰 위치의 목록이어야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>settings must be a JSON object</source>
        <translation>설정은 JSON 객체여야 합니다</translation>
    </message>
    <message>
        <source>invalid settings: {problem}</source>
        <translation>잘못된 설정: {problem}</translation>
    </message>
    <message>
        <source>{name} must be a whole number, got {value}</source>
        <translation>{name} 값은 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>{name} must be a whole number (digits 0-9), got {value}</source>
        <translation>{name} 값은 정수(숫자 0-9)여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>{name} is too large: a {digits}-digit number</source>
        <translation>{name} 값이 너무 큽니다: {digits}자리 수</translation>
    </message>
    <message>
        <source>{name} must be between {low} and {high}, got {value}</source>
        <translation>{name} 값은 {low}에서 {high} 사이여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>{name} must be true or false, got {value}</source>
        <translation>{name} 값은 true 또는 false여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>the {side}sentence is empty: type at least one token</source>
        <translation>{side}문장이 비어 있습니다: 토큰을 하나 이상 입력하세요</translation>
    </message>
    <message>
        <source>too many {side}tokens: {n} (at most {limit})</source>
        <translation>{side}토큰이 너무 많습니다: {n}개 (최대 {limit}개)</translation>
    </message>
    <message>
        <source>{side}tokens must not be empty strings</source>
        <translation>{side}토큰은 빈 문자열일 수 없습니다</translation>
    </message>
    <message>
        <source>{side}padding positions must be whole numbers, got {value}</source>
        <translation>{side}패딩 위치는 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>{side}padding position {value} is outside the {side}sentence (0..{last})</source>
        <translation>{side}패딩 위치 {value}: {side}문장의 범위(0..{last}) 밖입니다</translation>
    </message>
    <message>
        <source>{side}token {i} ({token}) is longer than {limit} characters</source>
        <translation>{side}토큰 {i} ({token}): {limit}자보다 깁니다</translation>
    </message>
    <message>
        <source>{side}token {i} ({token}) contains the character U+{code}, which cannot be shown</source>
        <translation>{side}토큰 {i} ({token})에 표시할 수 없는 문자(U+{code})가 들어 있습니다</translation>
    </message>
    <message>
        <source>d_model {d_model} is not divisible by {heads} heads (each head needs d_model / heads columns)</source>
        <translation>d_model = {d_model}: 헤드 {heads}개로 나누어떨어지지 않습니다 (헤드마다 d_model / 헤드 수만큼의 열이 필요합니다)</translation>
    </message>
    <message>
        <source>{heads} heads × {n} × {n} weights is too large to show (at most {cells} cells: {most} heads at {n} tokens); use fewer heads or tokens</source>
        <translation>헤드 {heads}개 × {n} × {n} 가중치는 너무 커서 표시할 수 없습니다 (최대 {cells}칸: 토큰 {n}개이면 헤드 {most}개까지). 헤드나 토큰을 줄이세요</translation>
    </message>
    <message>
        <source>unknown backend {value} (choose {choices})</source>
        <translation>알 수 없는 백엔드 {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>unknown device {value} (use cpu, cuda or cuda:N)</source>
        <translation>알 수 없는 장치 {value} (cpu, cuda, cuda:N 중 하나)</translation>
    </message>
    <message>
        <source>the numpy backend runs on the CPU only; choose torch for CUDA</source>
        <translation>numpy 백엔드는 CPU에서만 실행됩니다. CUDA를 쓰려면 torch를 선택하세요</translation>
    </message>
    <message>
        <source>unknown dtype {value} (choose {choices})</source>
        <translation>알 수 없는 dtype {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>unknown weight init {value} (choose {choices})</source>
        <translation>알 수 없는 가중치 초기화 {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>the text is empty</source>
        <translation>텍스트가 비어 있습니다</translation>
    </message>
    <message>
        <source>the text is {n} characters long; {model} accepts at most {limit} tokens (and {chars} characters)</source>
        <translation>텍스트가 {n}자로 깁니다: {model} 모델은 최대 토큰 {limit}개(그리고 {chars}자)까지 받습니다</translation>
    </message>
    <message>
        <source>the text is {n} tokens long; {model} accepts at most {limit}</source>
        <translation>텍스트가 토큰 {n}개로 깁니다: {model} 모델은 최대 {limit}개까지 받습니다</translation>
    </message>
    <message>
        <source>a head mask for {model} is ({layers}, {heads}), not {shape}</source>
        <translation>{model} 모델의 헤드 마스크는 ({layers}, {heads}) 모양이어야 합니다 (받은 모양: {shape})</translation>
    </message>
    <message>
        <source>{model} is an encoder: generation and the KV cache need a decoder</source>
        <translation>{model} 모델은 인코더입니다: 생성과 KV 캐시에는 디코더가 필요합니다</translation>
    </message>
    <message>
        <source>unknown preset {value} (choose {choices})</source>
        <translation>알 수 없는 프리셋 {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>d_ff must be a whole number, got {value}</source>
        <translation>d_ff는 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>d_ff must be between 1 and {limit}, got {value} (the FFN needs at least one hidden unit)</source>
        <translation>d_ff는 1에서 {limit} 사이여야 합니다 (받은 값: {value}). FFN에는 은닉 유닛이 하나 이상 필요합니다</translation>
    </message>
    <message>
        <source>unknown activation {value} (choose {choices})</source>
        <translation>알 수 없는 활성화 함수 {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>head mask needs one entry per head ({heads}), got shape {shape}</source>
        <translation>헤드 마스크에는 헤드마다 값이 하나씩({heads}개) 필요합니다 (받은 모양: {shape})</translation>
    </message>
    <message>
        <source>head mask entries must be on/off (True/False or 1/0)</source>
        <translation>헤드 마스크의 값은 켜기/끄기(True/False 또는 1/0)여야 합니다</translation>
    </message>
    <message>
        <source>the sweep needs at least one token and one seed</source>
        <translation>스윕에는 토큰과 시드가 하나 이상씩 필요합니다</translation>
    </message>
    <message>
        <source>no d_model in {widths} is divisible by {heads} heads</source>
        <translation>{widths} 중 헤드 {heads}개로 나누어떨어지는 d_model이 없습니다</translation>
    </message>
    <message>
        <source>unknown model {value} (choose from {choices})</source>
        <translation>알 수 없는 모델 {value} ({choices} 중에서 선택)</translation>
    </message>
    <message>
        <source>model {name} is not installed: {command}</source>
        <translation>{name} 모델이 설치되어 있지 않습니다. 설치: {command}</translation>
    </message>
    <message>
        <source>model {name} needs {wanted}, found {found}: {command}</source>
        <translation>{name} 모델에는 {wanted}이(가) 필요한데 {found} 버전이 설치되어 있습니다. 설치: {command}</translation>
    </message>
    <message>
        <source>model {name} needs {packages} to read it: {command}</source>
        <translation>{name} 모델을 읽으려면 {packages}이(가) 필요합니다. 설치: {command}</translation>
    </message>
    <message>
        <source>model {name}: {file} is missing from {package}; reinstall: {command}</source>
        <translation>{name} 모델: {package}에 {file} 파일이 없습니다. 다시 설치: {command}</translation>
    </message>
    <message>
        <source>training config is nested too deeply</source>
        <translation>학습 설정이 너무 깊게 중첩되어 있습니다</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>층 개수</translation>
    </message>
    <message>
        <source>sequence length</source>
        <translation>시퀀스 길이</translation>
    </message>
    <message>
        <source>vocabulary size</source>
        <translation>어휘 크기</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>학습 스텝 수</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>배치</translation>
    </message>
    <message>
        <source>log interval</source>
        <translation>기록 간격</translation>
    </message>
    <message>
        <source>snapshot interval</source>
        <translation>스냅샷 간격</translation>
    </message>
    <message>
        <source>{frames} snapshots would take {mib} MiB; use a snapshot interval of at least {least} steps</source>
        <translation>스냅샷 {frames}개는 {mib} MiB를 차지합니다; 스냅샷 간격을 {least} 스텝 이상으로 하세요</translation>
    </message>
    <message>
        <source>a step at batch {batch} would need about {gib} GiB (limit {limit} GiB); use a smaller batch or sequence</source>
        <translation>배치 {batch}에서 한 스텝에 약 {gib} GiB가 필요합니다(한도 {limit} GiB); 배치나 시퀀스를 줄이세요</translation>
    </message>
    <message>
        <source>d_model ({d_model}) must be divisible by heads ({heads})</source>
        <translation>d_model({d_model})은 헤드 수({heads})로 나누어떨어져야 합니다</translation>
    </message>
    <message>
        <source>{name} is an encoder: LoRA fine-tuning here trains on the next-token loss, which only a decoder has</source>
        <translation>{name}은(는) 인코더입니다: 여기서의 LoRA 미세조정은 다음 토큰 손실로 학습하는데, 이 손실은 디코더에만 있습니다</translation>
    </message>
    <message>
        <source>{name} is not run by the app&apos;s own forward: LoRA fine-tuning needs it</source>
        <translation>{name}은(는) 앱 자체의 순전파로 계산되지 않습니다: LoRA 미세조정에는 그것이 필요합니다</translation>
    </message>
    <message>
        <source>{name} already carries an adapter: fine-tune its base model instead</source>
        <translation>{name}에는 이미 어댑터가 붙어 있습니다: 대신 그 기본 모델을 미세조정하세요</translation>
    </message>
    <message>
        <source>LoRA needs at least one target module; choose among {choices}</source>
        <translation>LoRA에는 대상 모듈이 하나 이상 필요합니다. 다음 중에서 고르세요: {choices}</translation>
    </message>
    <message>
        <source>{family} has no module {value} to put a LoRA on; choose among {choices}</source>
        <translation>{family}에는 LoRA를 붙일 모듈 {value}이(가) 없습니다. 다음 중에서 고르세요: {choices}</translation>
    </message>
    <message>
        <source>LoRA rank must be a whole number from 1 to {limit}, got {value}</source>
        <translation>LoRA rank는 1부터 {limit}까지의 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>steps must be a whole number from 1 to {limit}, got {value}</source>
        <translation>스텝 수는 1부터 {limit}까지의 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>learning rate must be a number in (0, 1], got {value}</source>
        <translation>학습률은 (0, 1] 범위의 수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>seed must be a whole number from 0 to {limit}, got {value}</source>
        <translation>시드는 0부터 {limit}까지의 정수여야 합니다 (받은 값: {value})</translation>
    </message>
    <message>
        <source>type a few sentences to fine-tune on, one per line</source>
        <translation>미세조정에 쓸 문장을 몇 개 입력하세요 (한 줄에 한 문장)</translation>
    </message>
    <message>
        <source>{n} sentences: fine-tuning here takes at most {limit}</source>
        <translation>문장 {n}개: 여기서의 미세조정은 최대 {limit}개까지 받습니다</translation>
    </message>
    <message>
        <source>every sentence is a single token: the next-token loss needs two or more</source>
        <translation>모든 문장이 토큰 하나뿐입니다: 다음 토큰 손실에는 토큰이 두 개 이상 필요합니다</translation>
    </message>
    <message>
        <source>the sentences are {n} tokens together: fine-tuning here takes at most {limit}</source>
        <translation>문장들을 합치면 토큰 {n}개입니다: 여기서의 미세조정은 최대 {limit}개까지 받습니다</translation>
    </message>
    <message>
        <source>no trained model yet: train or load one in the Train tab</source>
        <translation>아직 학습된 모델이 없습니다: 학습 탭에서 모델을 학습하거나 불러오세요</translation>
    </message>
    <message>
        <source>the trained model&apos;s tokens are 0..{last}, not {value}</source>
        <translation>학습된 모델의 토큰은 0..{last}입니다. {value}는 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>the trained model reads at most {limit} tokens, not {n}</source>
        <translation>학습된 모델은 최대 {limit}개 토큰을 읽습니다 ({n}개가 아니라)</translation>
    </message>
    <message>
        <source>cannot read {path}: {reason}</source>
        <translation>{path}을(를) 읽을 수 없습니다: {reason}</translation>
    </message>
    <message>
        <source>cannot read the model file: {error}</source>
        <translation>모델 파일을 읽을 수 없습니다: {error}</translation>
    </message>
    <message>
        <source>it is not a safetensors file</source>
        <translation>safetensors 파일이 아닙니다</translation>
    </message>
    <message>
        <source>its safetensors header is not valid</source>
        <translation>safetensors 헤더가 올바르지 않습니다</translation>
    </message>
    <message>
        <source>{path} is not a model saved by attention-explorer train</source>
        <translation>{path}은(는) attention-explorer train으로 저장한 모델이 아닙니다</translation>
    </message>
    <message>
        <source>{path} has a bad config: {error}</source>
        <translation>{path}의 설정이 잘못되었습니다: {error}</translation>
    </message>
    <message>
        <source>{path} has a bad step count {value}</source>
        <translation>{path}의 스텝 수 {value}이(가) 잘못되었습니다</translation>
    </message>
    <message>
        <source>{path} does not match its config: it has no tensor {name}</source>
        <translation>{path}이(가) 설정과 맞지 않습니다: 텐서 {name}이(가) 없습니다</translation>
    </message>
    <message>
        <source>{path} does not match its config: its tensor {name} has no place in the model</source>
        <translation>{path}이(가) 설정과 맞지 않습니다: 텐서 {name}은(는) 모델에 들어갈 자리가 없습니다</translation>
    </message>
    <message>
        <source>{path} does not match its config: tensor {name} has shape {shape}, the config needs {expected}</source>
        <translation>{path}이(가) 설정과 맞지 않습니다: 텐서 {name}의 모양은 {shape}인데 설정에는 {expected}이(가) 필요합니다</translation>
    </message>
    <message>
        <source>{path}: tensor {name} is {dtype}; saved models are float32 (F32)</source>
        <translation>{path}: 텐서 {name}의 자료형이 {dtype}입니다. 저장된 모델은 float32(F32)여야 합니다</translation>
    </message>
    <message>
        <source>{path}: tensor {name} holds NaN or infinite weights</source>
        <translation>{path}: 텐서 {name}에 NaN 또는 무한대 가중치가 있습니다</translation>
    </message>
    <message>
        <source>the model was not saved: {error}</source>
        <translation>모델을 저장하지 않았습니다: {error}</translation>
    </message>
    <message>
        <source>saving and loading trained models needs the safetensors package (pip install &apos;attention-explorer[models]&apos;)</source>
        <translation>학습된 모델을 저장하고 불러오려면 safetensors 패키지가 필요합니다 (pip install &apos;attention-explorer[models]&apos;)</translation>
    </message>
    <message>
        <source>{repo} is not in the Hugging Face cache ({root}): {reason}; the app never downloads (open the model&apos;s folder, or copy it into the cache)</source>
        <translation>{repo}이(가) Hugging Face 캐시({root})에 없습니다: {reason}. 이 앱은 내려받지 않습니다 (모델 폴더를 열거나 캐시에 복사하세요)</translation>
    </message>
    <message>
        <source>{value} is neither a folder nor a repo id (ORG/NAME)</source>
        <translation>{value}은(는) 폴더도 저장소 ID(ORG/NAME)도 아닙니다</translation>
    </message>
    <message>
        <source>{tensor} has shape {found}, but config.json makes it {expected}</source>
        <translation>{tensor}의 모양이 {found}이지만 config.json에 따르면 {expected}이어야 합니다</translation>
    </message>
    <message>
        <source>{tensor} is missing from the checkpoint&apos;s weights</source>
        <translation>체크포인트의 가중치에 {tensor}이(가) 없습니다</translation>
    </message>
    <message>
        <source>{family}: {setting} {value} is not computed natively</source>
        <translation>{family}: {setting} {value}은(는) 앱 자체 계산으로 지원되지 않습니다</translation>
    </message>
    <message>
        <source>{path} is not a model folder ({reason})</source>
        <translation>{path}은(는) 모델 폴더가 아닙니다 ({reason})</translation>
    </message>
    <message>
        <source>{path} has no config.json: not a Hugging Face model folder</source>
        <translation>{path}에 config.json이 없습니다: Hugging Face 모델 폴더가 아닙니다</translation>
    </message>
    <message>
        <source>{path}: config.json is not valid ({reason})</source>
        <translation>{path}: config.json이 올바르지 않습니다 ({reason})</translation>
    </message>
    <message>
        <source>{path} holds only pickle weights ({file}), which are never loaded (unpickling runs code); {hint}</source>
        <translation>{path}에는 pickle 가중치({file})만 있습니다. pickle은 코드를 실행하므로 절대 불러오지 않습니다. {hint}</translation>
    </message>
    <message>
        <source>{path} has no weights (model.safetensors or model.safetensors.index.json)</source>
        <translation>{path}에 가중치가 없습니다 (model.safetensors 또는 model.safetensors.index.json)</translation>
    </message>
    <message>
        <source>the weights {path} cannot be read: {reason}</source>
        <translation>가중치 {path}을(를) 읽을 수 없습니다: {reason}</translation>
    </message>
    <message>
        <source>{path} has no tokenizer.json{extra}</source>
        <translation>{path}에 tokenizer.json이 없습니다{extra}</translation>
    </message>
    <message>
        <source>{name}: unknown architecture {family} (install transformers to open it)</source>
        <translation>{name}: 알 수 없는 구조 {family} (열려면 transformers를 설치하세요)</translation>
    </message>
    <message>
        <source>{name}: {family} is not computed natively, so its weights cannot be edited (an adapter needs the app&apos;s own forward)</source>
        <translation>{name}: {family}은(는) 앱 자체 순전파로 계산하지 않으므로 가중치를 바꿀 수 없습니다 (어댑터에는 앱 자체의 순전파가 필요합니다)</translation>
    </message>
    <message>
        <source>{name}: {family} is an encoder-decoder model; open an encoder or a decoder</source>
        <translation>{name}: {family}은(는) 인코더-디코더 모델입니다. 인코더나 디코더를 여세요</translation>
    </message>
    <message>
        <source>{name}: model type {family} is not computed natively</source>
        <translation>{name}: 모델 유형 {family}은(는) 앱 자체 계산으로 지원되지 않습니다</translation>
    </message>
    <message>
        <source>{name} needs {need} of memory as {dtype}; {where} has {free} available</source>
        <translation>{name}은(는) {dtype}(으)로 {need}의 메모리가 필요합니다. {where}에는 {free}만 남아 있습니다</translation>
    </message>
    <message>
        <source>{model} gives its attention only (no value vectors, no hidden states): value norms and the logit lens need a model the app runs itself</source>
        <translation>{model}은(는) 어텐션만 줍니다 (값 벡터도 은닉 상태도 없음): 값 노름과 로짓 렌즈는 앱이 직접 실행하는 모델에서만 볼 수 있습니다</translation>
    </message>
    <message>
        <source>one token only: there is no first token to drop</source>
        <translation>토큰이 하나뿐입니다: 뺄 첫 토큰이 없습니다</translation>
    </message>
    <message>
        <source>{model}: its run on edited tokens has other axes than its tokens (virtual tokens): the sink shares are shown as they are</source>
        <translation>{model}: 바꾼 토큰으로 실행하면 축이 토큰과 달라집니다 (가상 토큰): 싱크 비율은 원래 문장 그대로 보여 줍니다</translation>
    </message>
    <message>
        <source>the course model is one attention layer with no vocabulary: the logit lens needs a decoder (choose smollm2-135m under Model source)</source>
        <translation>강의용 모델은 어휘가 없는 어텐션 층 하나입니다: 로짓 렌즈에는 디코더가 필요합니다 (모델 소스에서 smollm2-135m을 고르세요)</translation>
    </message>
    <message>
        <source>{model} generates greedily here: sampling needs a model the app runs itself (a bundled decoder or an own checkpoint)</source>
        <translation>{model}은(는) 여기서 그리디로만 생성합니다: 샘플링은 앱이 직접 실행하는 모델(내장 디코더나 내 체크포인트)에서만 됩니다</translation>
    </message>
    <message>
        <source>{name}: an adapter needs a bundled model or an own checkpoint</source>
        <translation>{name}: 어댑터는 내장 모델이나 직접 연 체크포인트에만 적용할 수 있습니다</translation>
    </message>
    <message>
        <source>the base and the adapted analysis are of different texts</source>
        <translation>기반 모델과 어댑터 적용 모델의 분석이 서로 다른 문장에 대한 것입니다</translation>
    </message>
    <message>
        <source>there is no base model yet: train one or load a model file</source>
        <translation>아직 기반 모델이 없습니다: 모델을 학습하거나 모델 파일을 불러오세요</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>IA³</source>
        <translation>IA³</translation>
    </message>
    <message>
        <source>prefix tuning</source>
        <translation>프리픽스 튜닝</translation>
    </message>
    <message>
        <source>prompt tuning</source>
        <translation>프롬프트 튜닝</translation>
    </message>
    <message>
        <source>{path} is not an adapter folder ({reason})</source>
        <translation>{path}은(는) 어댑터 폴더가 아닙니다 ({reason})</translation>
    </message>
    <message>
        <source>{path} has no adapter_config.json: not a PEFT adapter folder</source>
        <translation>{path}에 adapter_config.json이 없습니다: PEFT 어댑터 폴더가 아닙니다</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json is not valid JSON ({reason})</source>
        <translation>{path}: adapter_config.json이 올바른 JSON이 아닙니다 ({reason})</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json is not a JSON object</source>
        <translation>{path}: adapter_config.json이 JSON 객체가 아닙니다</translation>
    </message>
    <message>
        <source>{path} holds only a pickled adapter ({file}), which is never loaded (unpickling runs code); save it with save_pretrained(dir, safe_serialization=True)</source>
        <translation>{path}에는 pickle 어댑터({file})만 있습니다. pickle은 코드를 실행하므로 절대 불러오지 않습니다. save_pretrained(dir, safe_serialization=True)로 저장하세요</translation>
    </message>
    <message>
        <source>the adapter weights {path} cannot be read ({reason})</source>
        <translation>어댑터 가중치 {path}을(를) 읽을 수 없습니다 ({reason})</translation>
    </message>
    <message>
        <source>{path} has no adapter_model.safetensors</source>
        <translation>{path}에 adapter_model.safetensors가 없습니다</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json: {key} must be {expected}, not {value}</source>
        <translation>{path}: adapter_config.json: {key}은(는) {value}이(가) 아니라 {expected}이어야 합니다</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json: {key} must be a whole number from 1 to {limit}, not {value}</source>
        <translation>{path}: adapter_config.json: {key}은(는) {value}이(가) 아니라 1부터 {limit}까지의 정수여야 합니다</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json: {key} has {n} entries, more than {limit}</source>
        <translation>{path}: adapter_config.json: {key}의 항목이 {n}개로 최대 {limit}개를 넘습니다</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json has no {key}</source>
        <translation>{path}: adapter_config.json에 {key}이(가) 없습니다</translation>
    </message>
    <message>
        <source>{path}: {peft_type} adapters are not supported (LoRA, IA³, prefix tuning and prompt tuning are)</source>
        <translation>{path}: {peft_type} 어댑터는 지원하지 않습니다 (LoRA, IA³, 프리픽스 튜닝, 프롬프트 튜닝을 지원합니다)</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json sets {key} to {value}, which is not supported ({why})</source>
        <translation>{path}: adapter_config.json의 {key} = {value}은(는) 지원하지 않습니다 ({why})</translation>
    </message>
    <message>
        <source>{path}: adapter_config.json: {key} holds the pattern {value}, whose nested repetition could take forever to match</source>
        <translation>{path}: adapter_config.json: {key}의 패턴 {value}은(는) 반복이 중첩되어 있어 일치 검사가 끝나지 않을 수 있습니다</translation>
    </message>
    <message>
        <source>a positive finite number</source>
        <translation>유한한 양수</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 또는 false</translation>
    </message>
    <message>
        <source>a text</source>
        <translation>문자열</translation>
    </message>
    <message>
        <source>a list of module names or a regular expression</source>
        <translation>모듈 이름 목록 또는 정규 표현식</translation>
    </message>
    <message>
        <source>a list of module names</source>
        <translation>모듈 이름 목록</translation>
    </message>
    <message>
        <source>an object of module patterns and numbers</source>
        <translation>모듈 패턴과 숫자로 된 객체</translation>
    </message>
    <message>
        <source>a layer index or a list of them</source>
        <translation>층 번호 또는 그 목록</translation>
    </message>
    <message>
        <source>&quot;none&quot;, &quot;all&quot; or &quot;lora_only&quot;</source>
        <translation>&quot;none&quot;, &quot;all&quot; 또는 &quot;lora_only&quot;</translation>
    </message>
    <message>
        <source>1 (encoder-decoder adapters are not supported)</source>
        <translation>1 (인코더-디코더 어댑터는 지원하지 않습니다)</translation>
    </message>
    <message>
        <source>DoRA&apos;s magnitude vectors are not computed here</source>
        <translation>DoRA의 크기(magnitude) 벡터는 여기서 계산하지 않습니다</translation>
    </message>
    <message>
        <source>the model&apos;s embeddings are tied to its output layer</source>
        <translation>모델의 임베딩이 출력층과 묶여(tied) 있습니다</translation>
    </message>
    <message>
        <source>only its default is</source>
        <translation>기본값만 지원합니다</translation>
    </message>
    <message>
        <source>{path}: adapters need the app&apos;s own forward; {name} ({family}) goes through transformers</source>
        <translation>{path}: 어댑터는 앱 자체의 순전파가 필요합니다. {name} ({family})은(는) transformers로 계산됩니다</translation>
    </message>
    <message>
        <source>{path}: prefix tuning needs a decoder; {name} is an encoder</source>
        <translation>{path}: 프리픽스 튜닝에는 디코더가 필요합니다. {name}은(는) 인코더입니다</translation>
    </message>
    <message>
        <source>{path}: {method} on the bundled {name} is not supported (LoRA and IA³ are; open the model&apos;s own checkpoint folder for the rest)</source>
        <translation>{path}: 내장 모델 {name}에서는 {method}을(를) 지원하지 않습니다 (LoRA와 IA³는 지원합니다. 나머지는 모델의 체크포인트 폴더를 직접 여세요)</translation>
    </message>
    <message>
        <source>{path}: LoRA on the embeddings ({module}) is not supported</source>
        <translation>{path}: 임베딩({module})에 대한 LoRA는 지원하지 않습니다</translation>
    </message>
    <message>
        <source>{path}: adapter_model.safetensors holds {n} tensors, more than {limit}: not an adapter</source>
        <translation>{path}: adapter_model.safetensors에 텐서가 {n}개로 {limit}개를 넘습니다: 어댑터가 아닙니다</translation>
    </message>
    <message>
        <source>{path}: {tensor} is {dtype}, not a floating-point tensor</source>
        <translation>{path}: {tensor}은(는) {dtype}이며 부동소수점 텐서가 아닙니다</translation>
    </message>
    <message>
        <source>{path}: {tensor} holds NaN or infinite values</source>
        <translation>{path}: {tensor}에 NaN 또는 무한대 값이 있습니다</translation>
    </message>
    <message>
        <source>{path}: adapter_model.safetensors holds {tensor}, which is not a {method} tensor</source>
        <translation>{path}: adapter_model.safetensors의 {tensor}은(는) {method} 텐서가 아닙니다</translation>
    </message>
    <message>
        <source>{path}: adapter_model.safetensors holds {tensor}, a module adapter_config.json does not target</source>
        <translation>{path}: adapter_model.safetensors에 adapter_config.json이 대상으로 삼지 않은 모듈의 텐서 {tensor}이(가) 있습니다</translation>
    </message>
    <message>
        <source>{path}: {module} has {found} but no {missing}</source>
        <translation>{path}: {module}에 {found}은(는) 있지만 {missing}이(가) 없습니다</translation>
    </message>
    <message>
        <source>{path}: {tensor} has rank {found}; adapter_config.json gives {module} r = {expected}</source>
        <translation>{path}: {tensor}의 rank는 {found}이지만 adapter_config.json에 따르면 {module}의 r = {expected}입니다</translation>
    </message>
    <message>
        <source>{path}: {tensor} adds a bias to {module}, which has none in {name}</source>
        <translation>{path}: {tensor}은(는) {module}에 bias를 더하지만 {name}의 이 모듈에는 bias가 없습니다</translation>
    </message>
    <message>
        <source>{path}: adapter_model.safetensors holds no {method} tensors</source>
        <translation>{path}: adapter_model.safetensors에 {method} 텐서가 없습니다</translation>
    </message>
    <message>
        <source>{path}: adapter for another base: {name} has no module {module}</source>
        <translation>{path}: 다른 기반 모델용 어댑터입니다: {name}에는 {module} 모듈이 없습니다</translation>
    </message>
    <message>
        <source>{path}: adapter for another base: {tensor} has shape {found}, {name}&apos;s {target} needs {expected}</source>
        <translation>{path}: 다른 기반 모델용 어댑터입니다: {tensor}의 모양은 {found}인데 {name}의 {target}에는 {expected}이(가) 필요합니다</translation>
    </message>
    <message>
        <source>{path}: adapter for another base: prompt_embeddings has shape {found}; {name} needs (v, layers × 2 × K/V heads × d_head) = {expected}</source>
        <translation>{path}: 다른 기반 모델용 어댑터입니다: prompt_embeddings의 모양은 {found}인데 {name}에는 (v, 층 × 2 × K/V 헤드 × d_head) = {expected}이(가) 필요합니다</translation>
    </message>
    <message>
        <source>{path}: adapter for another base: prompt_embeddings has shape {found}; {name} needs (v, embedding width) = {expected}</source>
        <translation>{path}: 다른 기반 모델용 어댑터입니다: prompt_embeddings의 모양은 {found}인데 {name}에는 (v, 임베딩 폭) = {expected}이(가) 필요합니다</translation>
    </message>
    <message>
        <source>{path}: adapter for another base: adapter_config.json says {key} {found}, {name} has {expected}</source>
        <translation>{path}: 다른 기반 모델용 어댑터입니다: adapter_config.json의 {key}은(는) {found}인데 {name}은(는) {expected}입니다</translation>
    </message>
    <message>
        <source>{path}: {module} could be {first} or {second} of {name}</source>
        <translation>{path}: {module}이(가) {name}의 {first}인지 {second}인지 알 수 없습니다</translation>
    </message>
    <message>
        <source>{path}: {v} virtual tokens leave no room in {name} ({limit} positions)</source>
        <translation>{path}: 가상 토큰 {v}개가 {name}의 위치({limit}개)를 모두 차지합니다</translation>
    </message>
    <message>
        <source>{model}: value norms and the logit lens need the app&apos;s own forward (this model goes through transformers)</source>
        <translation>{model}: 값 노름(value norm)과 로짓 렌즈(logit lens)에는 앱 자체의 순전파가 필요합니다 (이 모델은 transformers로 실행됩니다)</translation>
    </message>
    <message>
        <source>attention flow is computed up to {limit} tokens at {layers} layers (it needs n² maximum flows); this sequence has {n} tokens: rollout shows the same layers</source>
        <translation>어텐션 흐름(attention flow)은 {layers}개 층에서 토큰 {limit}개까지만 계산합니다 (최대 유량을 n²번 풀어야 합니다). 이 시퀀스는 토큰이 {n}개입니다: 같은 층을 롤아웃(rollout)으로 보세요</translation>
    </message>
    <message>
        <source>{model} is an encoder: the logit lens needs a decoder</source>
        <translation>{model}은(는) 인코더입니다: 로짓 렌즈(logit lens)에는 디코더가 필요합니다</translation>
    </message>
    <message>
        <source>the temperature must be a number above 0, not {value}</source>
        <translation>온도(temperature)는 0보다 큰 수여야 합니다. {value}는 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>top-k must be a whole number of at least 1, not {value}</source>
        <translation>top-k는 1 이상의 정수여야 합니다. {value}는 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>top-p must be above 0 and at most 1, not {value}</source>
        <translation>top-p는 0보다 크고 1 이하여야 합니다. {value}는 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>the sampling seed must be 0..{limit}, not {value}</source>
        <translation>샘플링 시드는 0..{limit}이어야 합니다. {value}는 쓸 수 없습니다</translation>
    </message>
    <message>
        <source>unknown PEFT setting {value} (choose {choices})</source>
        <translation>알 수 없는 PEFT 설정 {value} ({choices} 중에서 고르세요)</translation>
    </message>
    <message>
        <source>LoRA needs at least one target among q, k, v, o</source>
        <translation>LoRA에는 q, k, v, o 중 대상이 하나 이상 필요합니다</translation>
    </message>
    <message>
        <source>unknown LoRA target {value}; choose among q, k, v, o</source>
        <translation>알 수 없는 LoRA 대상 {value}: q, k, v, o 중에서 고르세요</translation>
    </message>
    <message>
        <source>a LoRA target is named twice: {value}</source>
        <translation>LoRA 대상이 두 번 지정되었습니다: {value}</translation>
    </message>
    <message>
        <source>LoRA rank must be a whole number from 1 to d_model ({d_model}), got {value}</source>
        <translation>LoRA rank는 1부터 d_model({d_model})까지의 정수여야 합니다. 받은 값: {value}</translation>
    </message>
    <message>
        <source>LoRA alpha must be a number above 0 and at most {limit}, got {value}</source>
        <translation>LoRA α는 0보다 크고 {limit} 이하인 수여야 합니다. 받은 값: {value}</translation>
    </message>
</context>
<context>
    <name>export</name>
    <message>
        <source>scaled ÷√{d_head}</source>
        <translation>스케일링 ÷√{d_head}</translation>
    </message>
    <message>
        <source>not scaled</source>
        <translation>스케일링 없음</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>인과 마스크</translation>
    </message>
    <message>
        <source>padding {positions}</source>
        <translation>패딩 {positions}</translation>
    </message>
    <message>
        <source>{n} heads</source>
        <translation>헤드 {n}개</translation>
    </message>
    <message>
        <source>{n} head</source>
        <translation>헤드 {n}개</translation>
    </message>
    <message>
        <source>seed {seed}</source>
        <translation>시드 {seed}</translation>
    </message>
    <message>
        <source>mask: {masks}</source>
        <translation>마스크: {masks}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>+ positional encoding</source>
        <translation>+ 위치 인코딩</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>헤드 {head}</translation>
    </message>
    <message>
        <source>positional encoding</source>
        <translation>위치 인코딩</translation>
    </message>
    <message>
        <source>KV cache, step {step} ({token})</source>
        <translation>KV 캐시, 단계 {step} ({token})</translation>
    </message>
    <message>
        <source>nothing to export yet: the first picture has not been computed</source>
        <translation>아직 내보낼 것이 없습니다: 첫 그림이 아직 계산되지 않았습니다</translation>
    </message>
    <message>
        <source>The picture has changed: {figure} is not in the picture now; choose the figure again</source>
        <translation>그림이 바뀌었습니다: {figure}은(는) 지금 그림에 없습니다. 그림을 다시 고르세요</translation>
    </message>
    <message>
        <source>the whole window can be exported as PNG or SVG, not CSV</source>
        <translation>창 전체는 PNG나 SVG로만 내보낼 수 있습니다 (CSV는 안 됩니다)</translation>
    </message>
    <message>
        <source>there are no snapshots to export yet</source>
        <translation>아직 내보낼 스냅샷이 없습니다</translation>
    </message>
    <message>
        <source>cannot write to {where}: {reason}</source>
        <translation>{where}에 쓸 수 없습니다: {reason}</translation>
    </message>
    <message>
        <source>the folder does not exist</source>
        <translation>폴더가 없습니다</translation>
    </message>
    <message>
        <source>not a folder</source>
        <translation>폴더가 아닙니다</translation>
    </message>
    <message>
        <source>{path} is not a regular file ({kind}); it is never replaced</source>
        <translation>{path}은(는) 일반 파일이 아닙니다({kind}). 덮어쓰지 않습니다</translation>
    </message>
    <message>
        <source>a symbolic link</source>
        <translation>심볼릭 링크</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>폴더</translation>
    </message>
    <message>
        <source>a FIFO</source>
        <translation>FIFO</translation>
    </message>
    <message>
        <source>a device</source>
        <translation>장치</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>소켓</translation>
    </message>
    <message>
        <source>invalid file name: the name is empty</source>
        <translation>잘못된 파일 이름: 이름이 비어 있습니다</translation>
    </message>
    <message>
        <source>invalid file name {name}: it must not contain {chars}</source>
        <translation>잘못된 파일 이름 {name}: {chars} 문자를 넣을 수 없습니다</translation>
    </message>
    <message>
        <source>invalid file name {name}: it must not contain the character {code}</source>
        <translation>잘못된 파일 이름 {name}: {code} 문자를 넣을 수 없습니다</translation>
    </message>
    <message>
        <source>invalid file name {name}</source>
        <translation>잘못된 파일 이름 {name}</translation>
    </message>
    <message>
        <source>invalid file name {name}: a name starting with a dot is a hidden file</source>
        <translation>잘못된 파일 이름 {name}: 점으로 시작하는 이름은 숨김 파일이 됩니다</translation>
    </message>
    <message>
        <source>invalid file name {name}: it starts or ends with a space</source>
        <translation>잘못된 파일 이름 {name}: 공백으로 시작하거나 끝납니다</translation>
    </message>
    <message>
        <source>invalid file name: longer than {limit} bytes</source>
        <translation>잘못된 파일 이름: {limit}바이트보다 깁니다</translation>
    </message>
    <message>
        <source>two exported files would both be called {name}</source>
        <translation>내보낼 파일 두 개의 이름이 모두 {name}이(가) 됩니다</translation>
    </message>
    <message>
        <source>not a file</source>
        <translation>파일이 아님</translation>
    </message>
    <message>
        <source>the disk is full (no space left on device)</source>
        <translation>디스크가 가득 찼습니다 (남은 공간 없음)</translation>
    </message>
    <message>
        <source>the disk quota is exceeded</source>
        <translation>디스크 할당량을 넘었습니다</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>권한이 없습니다</translation>
    </message>
    <message>
        <source>the file system is read-only</source>
        <translation>읽기 전용 파일 시스템입니다</translation>
    </message>
    <message>
        <source>a part of the path is not a folder</source>
        <translation>경로의 일부가 폴더가 아닙니다</translation>
    </message>
    <message>
        <source>the file name is too long</source>
        <translation>파일 이름이 너무 깁니다</translation>
    </message>
    <message>
        <source>the file name is not valid on this file system</source>
        <translation>이 파일 시스템에서 쓸 수 없는 파일 이름입니다</translation>
    </message>
</context>
<context>
    <name>files</name>
    <message>
        <source>{path} does not exist</source>
        <translation>{path}이(가) 없습니다</translation>
    </message>
    <message>
        <source>{path} is not a regular file ({kind})</source>
        <translation>{path}은(는) 일반 파일이 아닙니다 ({kind})</translation>
    </message>
    <message>
        <source>{path} is larger than {limit} (it has {size})</source>
        <translation>{path}이(가) {limit}보다 큽니다 ({size})</translation>
    </message>
    <message>
        <source>cannot read {path}: {reason}</source>
        <translation>{path}을(를) 읽을 수 없습니다: {reason}</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>권한이 없습니다</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>폴더</translation>
    </message>
    <message>
        <source>a FIFO</source>
        <translation>FIFO</translation>
    </message>
    <message>
        <source>a device</source>
        <translation>장치</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>소켓</translation>
    </message>
    <message>
        <source>not a file</source>
        <translation>파일이 아님</translation>
    </message>
</context>
<context>
    <name>heads.grid</name>
    <message>
        <source>head {head}: {query} → {key}</source>
        <translation>헤드 {head}: {query} → {key}</translation>
    </message>
    <message>
        <source>{where}: every key is masked for this query (weights all 0)</source>
        <translation>{where}: 이 쿼리의 모든 키가 가려짐 (가중치 모두 0)</translation>
    </message>
    <message>
        <source>{where}: masked (weight 0; raw score {raw} not used)</source>
        <translation>{where}: 가려짐 (가중치 0, 원점수 {raw} 사용 안 함)</translation>
    </message>
    <message>
        <source>{where}, weight {weight}, raw score {raw}</source>
        <translation>{where}, 가중치 {weight}, 원점수 {raw}</translation>
    </message>
    <message>
        <source> (scaled {scaled})</source>
        <translation> (스케일 후 {scaled})</translation>
    </message>
    <message>
        <source>Showing heads 0–{last} of {count}; choose a head to enlarge any other.</source>
        <translation>헤드 {count}개 중 0–{last}만 표시합니다. 다른 헤드는 선택해서 크게 보세요.</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>가중치</translation>
    </message>
</context>
<context>
    <name>heads.info_strip</name>
    <message>
        <source> … (mean {mean})</source>
        <translation> … (평균 {mean})</translation>
    </message>
    <message>
        <source>entropy per head (nats; ln n = {ln_n}): {shown}</source>
        <translation>헤드별 엔트로피 (nats, ln n = {ln_n}): {shown}</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>계산 중…</translation>
    </message>
    <message>
        <source>shapes {flow}</source>
        <translation>모양 {flow}</translation>
    </message>
    <message>
        <source>X (n, d_model) → split into heads (h, n, d_head) → concat and W_O (n, d_model)</source>
        <translation>X (n, d_model) → 헤드로 나눔 (h, n, d_head) → 이어 붙이고 W_O (n, d_model)</translation>
    </message>
    <message>
        <source>parameters {count}</source>
        <translation>파라미터 {count}개</translation>
    </message>
    <message>
        <source>W_Q, W_K, W_V, W_O: {numbers}, the same for any number of heads</source>
        <translation>W_Q, W_K, W_V, W_O: {numbers}, 헤드 수와 상관없이 같음</translation>
    </message>
    <message>
        <source>{time} on {device}</source>
        <translation>{time}, {device}</translation>
    </message>
    <message>
        <source>{count} floating-point operations</source>
        <translation>부동소수점 연산 {count}회</translation>
    </message>
    <message>
        <source>float32 (auto)</source>
        <translation>float32 (자동)</translation>
    </message>
    <message>
        <source>Computed in float32 because no values are shown at this size; show values (or fewer tokens) for exact float64 numbers.</source>
        <translation>이 크기에서는 값을 표시하지 않으므로 float32로 계산했습니다. 정확한 float64 숫자를 보려면 값 표시를 켜거나 토큰 수를 줄이세요.</translation>
    </message>
</context>
<context>
    <name>heads.panel</name>
    <message>
        <source>head {head}</source>
        <translation>헤드 {head}</translation>
    </message>
    <message>
        <source>query</source>
        <translation>쿼리</translation>
    </message>
    <message>
        <source>key</source>
        <translation>키</translation>
    </message>
</context>
<context>
    <name>insight.lens</name>
    <message>
        <source>positions {first}–{last} of 0–{end}</source>
        <translation>위치 {first}–{last} (전체 0–{end})</translation>
    </message>
    <message>
        <source>Cells: the likeliest next token after that layer, shaded by its probability; ★ the first layer whose top token is the final answer (the last row). Hover a cell for the numbers.</source>
        <translation>칸: 그 층 뒤에서 가장 그럴듯한 다음 토큰, 색 진하기는 확률; ★ 최상위 토큰이 처음으로 최종 답(마지막 행)과 같아지는 층. 칸에 마우스를 올리면 수치가 보입니다.</translation>
    </message>
    <message>
        <source>{row}, position {position}: {token} p = {p}; the final answer {final} has p = {final_p} here</source>
        <translation>{row}, 위치 {position}: {token} p = {p}; 최종 답 {final}의 여기서 확률 p = {final_p}</translation>
    </message>
    <message>
        <source>embeddings</source>
        <translation>임베딩</translation>
    </message>
    <message>
        <source>layer {layer}</source>
        <translation>층 {layer}</translation>
    </message>
    <message>
        <source>The logit lens reads each layer&apos;s residual stream through the model&apos;s own final norm and unembedding: the next token the model would give if it stopped after that layer. Watch the answer form.</source>
        <translation>로짓 렌즈는 각 층의 잔차 스트림을 모델 자신의 마지막 정규화와 언임베딩에 통과시킵니다: 그 층에서 멈췄다면 모델이 내놓았을 다음 토큰입니다. 답이 만들어지는 과정을 보세요.</translation>
    </message>
    <message>
        <source>from position </source>
        <translation>시작 위치 </translation>
    </message>
    <message>
        <source>earlier positions</source>
        <translation>앞 위치</translation>
    </message>
    <message>
        <source>later positions</source>
        <translation>뒤 위치</translation>
    </message>
</context>
<context>
    <name>insight.lines</name>
    <message>
        <source>{token} (query {i}) attends most to {best} ({weight})</source>
        <translation>{token} (쿼리 {i})이(가) 가장 많이 보는 토큰: {best} ({weight})</translation>
    </message>
    <message>
        <source>{token} (key {j}) gets most from {best} ({weight}); total {total}</source>
        <translation>{token} (키 {j})을(를) 가장 많이 보는 토큰: {best} ({weight}); 합계 {total}</translation>
    </message>
    <message>
        <source>Enlarge a head (click it) to draw it as lines.</source>
        <translation>헤드를 크게 보면(클릭) 선으로 그립니다.</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>헤드 {head}</translation>
    </message>
    <message>
        <source>{title} — queries left, keys right; a line&apos;s opacity is its weight. Hover a token to keep only its lines.</source>
        <translation>{title} — 왼쪽은 쿼리, 오른쪽은 키; 선의 불투명도가 가중치입니다. 토큰에 마우스를 올리면 그 토큰의 선만 남습니다.</translation>
    </message>
</context>
<context>
    <name>insight.mount</name>
    <message>
        <source>Inside attention</source>
        <translation>어텐션 속</translation>
    </message>
    <message>
        <source>pieces</source>
        <translation>조각</translation>
    </message>
    <message>
        <source>words</source>
        <translation>단어</translation>
    </message>
    <message>
        <source>one row and column per token piece, as the model reads them</source>
        <translation>모델이 읽는 대로 토큰 조각마다 행과 열 하나</translation>
    </message>
    <message>
        <source>pieces grouped into words (Korean: eojeol): a word&apos;s key pieces summed, its query pieces averaged; rows still sum to 1</source>
        <translation>조각을 단어(한국어는 어절)로 묶음: 키 조각은 합하고 쿼리 조각은 평균; 행의 합은 그대로 1</translation>
    </message>
    <message>
        <source>heatmap</source>
        <translation>히트맵</translation>
    </message>
    <message>
        <source>lines</source>
        <translation>선</translation>
    </message>
    <message>
        <source>the enlarged head as lines between two columns of tokens (opacity = weight); click a head to enlarge it</source>
        <translation>크게 본 헤드를 두 열의 토큰 사이 선으로 (불투명도 = 가중치); 헤드를 클릭해 크게 보세요</translation>
    </message>
</context>
<context>
    <name>insight.rollout</name>
    <message>
        <source>rollout</source>
        <translation>롤아웃</translation>
    </message>
    <message>
        <source>flow</source>
        <translation>흐름</translation>
    </message>
    <message>
        <source>attention flow into each position after layer {layer} (rows: positions, columns: input tokens)</source>
        <translation>층 {layer} 뒤 각 위치로 들어오는 어텐션 흐름 (행: 위치, 열: 입력 토큰)</translation>
    </message>
    <message>
        <source>Flow: the maximum flow from each input token to each position through the layers&apos; pipes (capacities Â = ½·A + ½·I).</source>
        <translation>흐름: 층들을 관으로 보고 각 입력 토큰에서 각 위치까지 흐를 수 있는 최대 유량 (용량 Â = ½·A + ½·I).</translation>
    </message>
    <message>
        <source>rollout after layer {layer} (rows: positions, columns: input tokens)</source>
        <translation>층 {layer} 뒤 롤아웃 (행: 위치, 열: 입력 토큰)</translation>
    </message>
    <message>
        <source>computing the flow…</source>
        <translation>흐름 계산 중…</translation>
    </message>
    <message>
        <source>Each row sums to 1. Flow is computed up to {n} tokens at this layer.</source>
        <translation>각 행의 합은 1입니다. 이 층에서 흐름은 토큰 {n}개까지 계산합니다.</translation>
    </message>
    <message>
        <source>after layer {layer}</source>
        <translation>층 {layer} 뒤</translation>
    </message>
    <message>
        <source>Rollout (Abnar &amp; Zuidema 2020) follows each input token through the layers with the residual stream: each layer&apos;s Â = ½·(mean over heads of A) + ½·I, rows renormalised (forgetting I is the usual mistake), multiplied layer by layer. Row i: what each input token contributes to position i.</source>
        <translation>어텐션 롤아웃은 잔차 스트림까지 넣어 각 입력 토큰을 층마다 따라갑니다: 층마다 Â = ½·(헤드 평균 A) + ½·I, 행을 다시 정규화하고(I를 빼먹는 것이 흔한 실수), 층을 차례로 곱합니다. 행 i: 각 입력 토큰이 위치 i에 기여하는 몫.</translation>
    </message>
</context>
<context>
    <name>insight.sampling</name>
    <message>
        <source>greedy</source>
        <translation>그리디</translation>
    </message>
    <message>
        <source>sample</source>
        <translation>샘플링</translation>
    </message>
    <message>
        <source>model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>÷ temperature</source>
        <translation>÷ 온도</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>상위 k</translation>
    </message>
    <message>
        <source>top-p</source>
        <translation>상위 p</translation>
    </message>
    <message>
        <source>Generate to see each new token drawn: the model&apos;s distribution, then after temperature, top-k and top-p.</source>
        <translation>생성하면 새 토큰을 뽑는 과정이 보입니다: 모델의 분포, 그다음 온도, 상위 k, 상위 p를 거친 분포.</translation>
    </message>
    <message>
        <source>This step feeds a token of the sentence: move the slider to a step that chose a new token.</source>
        <translation>이 단계는 문장의 토큰을 넣는 단계입니다: 새 토큰을 고른 단계로 슬라이더를 옮기세요.</translation>
    </message>
    <message>
        <source>greedy: the likeliest</source>
        <translation>그리디: 가장 그럴듯한 토큰</translation>
    </message>
    <message>
        <source>drawn with seed {seed} from {kept} tokens kept</source>
        <translation>남은 토큰 {kept}개에서 시드 {seed}로 뽑음</translation>
    </message>
    <message>
        <source>New token {j}: {token} (p = {p} after the last stage; {how}).</source>
        <translation>새 토큰 {j}: {token} (마지막 단계 뒤 p = {p}; {how}).</translation>
    </message>
    <message>
        <source>It is not among the model&apos;s {n} likeliest tokens the bars show.</source>
        <translation>막대로 보여 주는 모델의 상위 {n}개 토큰 안에는 없습니다.</translation>
    </message>
    <message>
        <source>temperature </source>
        <translation>온도 </translation>
    </message>
    <message>
        <source>top-k </source>
        <translation>상위 k </translation>
    </message>
    <message>
        <source>top-k off</source>
        <translation>상위 k 끔</translation>
    </message>
    <message>
        <source>top-p </source>
        <translation>상위 p </translation>
    </message>
    <message>
        <source>keep the likeliest tokens whose probabilities reach p (1: off)</source>
        <translation>확률 합이 p에 이를 때까지 가장 그럴듯한 토큰만 남김 (1: 끔)</translation>
    </message>
    <message>
        <source>keep the k likeliest tokens (0: off)</source>
        <translation>가장 그럴듯한 토큰 k개만 남김 (0: 끔)</translation>
    </message>
    <message>
        <source>divide the scores by T: below 1 sharper, above 1 flatter</source>
        <translation>점수를 T로 나눔: 1보다 작으면 뾰족하게, 크면 평평하게</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>시드 </translation>
    </message>
    <message>
        <source>the same seed draws the same tokens</source>
        <translation>같은 시드는 같은 토큰을 뽑습니다</translation>
    </message>
</context>
<context>
    <name>insight.saving</name>
    <message>
        <source>Save PNG</source>
        <translation>PNG로 저장</translation>
    </message>
    <message>
        <source>Save PNG…</source>
        <translation>PNG로 저장…</translation>
    </message>
    <message>
        <source>Save this picture as a PNG file (twice the screen&apos;s size)</source>
        <translation>이 그림을 PNG 파일로 저장 (화면의 두 배 크기)</translation>
    </message>
</context>
<context>
    <name>insight.sinks</name>
    <message>
        <source>as it is</source>
        <translation>그대로</translation>
    </message>
    <message>
        <source>drop the first token</source>
        <translation>첫 토큰 빼기</translation>
    </message>
    <message>
        <source>repeat the first token</source>
        <translation>첫 토큰 두 번</translation>
    </message>
    <message>
        <source>first token:</source>
        <translation>첫 토큰:</translation>
    </message>
    <message>
        <source>First token {token}: {mean} of the attention on average over the layers, most in layer {layer} ({top}).</source>
        <translation>첫 토큰 {token}: 층 평균으로 어텐션의 {mean}, 가장 많은 층은 {layer} ({top}).</translation>
    </message>
    <message>
        <source>Separators (positions {where}): {mean} on average.</source>
        <translation>구분 토큰 (위치 {where}): 평균 {mean}.</translation>
    </message>
    <message>
        <source>Tokens read: {tokens}</source>
        <translation>읽은 토큰: {tokens}</translation>
    </message>
    <message>
        <source>on the first token</source>
        <translation>첫 토큰에</translation>
    </message>
    <message>
        <source>on separators</source>
        <translation>구분 토큰에</translation>
    </message>
    <message>
        <source>An attention sink is a token that gets a large share of every row whatever the sentence says: a softmax row must sum to 1, so a head with nothing to look for parks its weight on the first token ([CLS], &lt;s&gt;, a decoder&apos;s first word) or a separator. Drop or repeat the first token and watch the share move.</source>
        <translation>어텐션 싱크는 문장 내용과 상관없이 모든 행에서 큰 몫을 받는 토큰입니다: softmax 행의 합은 1이어야 하므로, 볼 것이 없는 헤드는 가중치를 첫 토큰([CLS], &lt;s&gt;, 디코더의 첫 단어)이나 구분 토큰에 세워 둡니다. 첫 토큰을 빼거나 두 번 넣고 몫이 옮겨 가는 것을 보세요.</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>층</translation>
    </message>
    <message>
        <source>share of attention (mean over heads and queries)</source>
        <translation>어텐션 몫 (헤드와 쿼리 평균)</translation>
    </message>
</context>
<context>
    <name>insight.values</name>
    <message>
        <source>layer {layer} (the Heads tab&apos;s layer)</source>
        <translation>층 {layer} (헤드 탭의 층)</translation>
    </message>
    <message>
        <source>α: the weights</source>
        <translation>α: 가중치</translation>
    </message>
    <message>
        <source>‖α · v W_O‖: what each key adds</source>
        <translation>‖α · v W_O‖: 각 키가 실제로 더하는 양</translation>
    </message>
    <message>
        <source>Head {head}: disagreement {tv} (0: α and the norms tell the same story, 1: they put their mass on different keys). Most in layer {layer}: head {worst} ({most}).</source>
        <translation>헤드 {head}: 불일치 {tv} (0: α와 노름이 같은 이야기를 함, 1: 서로 다른 키에 몰림). 층 {layer}에서 가장 큰 헤드: {worst} ({most}).</translation>
    </message>
    <message>
        <source>A head&apos;s output is Σ_j α_ij · v_j W_O: a big weight on a small value vector moves little. ‖α_ij · v_j W_O‖ (Kobayashi et al. 2020) says how much key j really adds to query i; a sink often has a small vector.</source>
        <translation>헤드의 출력은 Σ_j α_ij · v_j W_O입니다: 작은 값 벡터에 큰 가중치를 줘도 바뀌는 것은 적습니다. 노름 ‖α_ij · v_j W_O‖는 키 j가 쿼리 i에 실제로 얼마나 더하는지 말해 줍니다; 싱크는 벡터가 작은 경우가 많습니다.</translation>
    </message>
    <message>
        <source>head </source>
        <translation>헤드 </translation>
    </message>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>disagreement</source>
        <translation>불일치</translation>
    </message>
</context>
<context>
    <name>insight.view</name>
    <message>
        <source>Attention sinks</source>
        <translation>어텐션 싱크</translation>
    </message>
    <message>
        <source>Rollout and flow</source>
        <translation>롤아웃과 흐름</translation>
    </message>
    <message>
        <source>Value-weighted</source>
        <translation>값 가중</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>로짓 렌즈</translation>
    </message>
    <message>
        <source>how much attention lands on the first token and on separators, per layer</source>
        <translation>층마다 첫 토큰과 구분 토큰에 어텐션이 얼마나 몰리는지</translation>
    </message>
    <message>
        <source>attention rollout across the layers (0.5·A + 0.5·I), and attention flow</source>
        <translation>층을 가로지르는 어텐션 롤아웃 (0.5·A + 0.5·I)과 어텐션 흐름</translation>
    </message>
    <message>
        <source>‖α · v W_O‖ beside α: what each key really adds</source>
        <translation>α 옆에 ‖α · v W_O‖: 각 키가 실제로 더하는 양</translation>
    </message>
    <message>
        <source>a decoder&apos;s next token after each layer</source>
        <translation>층마다 디코더가 내놓을 다음 토큰</translation>
    </message>
    <message>
        <source>Waiting for the model source&apos;s first picture…</source>
        <translation>모델 소스의 첫 그림을 기다리는 중…</translation>
    </message>
    <message>
        <source>computing {what} for {model}…</source>
        <translation>{model}의 {what} 계산 중…</translation>
    </message>
</context>
<context>
    <name>kv.cache_view</name>
    <message>
        <source>K cache</source>
        <translation>K 캐시</translation>
    </message>
    <message>
        <source>cached token</source>
        <translation>캐시된 토큰</translation>
    </message>
    <message>
        <source>V cache</source>
        <translation>V 캐시</translation>
    </message>
    <message>
        <source>query q_t</source>
        <translation>쿼리 q_t</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>차원</translation>
    </message>
    <message>
        <source>output row t</source>
        <translation>출력 행 t</translation>
    </message>
    <message>
        <source>after W_O</source>
        <translation>W_O 이후</translation>
    </message>
    <message>
        <source>cached key (colour 0 … step&apos;s largest)</source>
        <translation>캐시된 키 (색: 0 … 단계 최대)</translation>
    </message>
    <message>
        <source>attention of q_t over the cached keys</source>
        <translation>캐시된 키에 대한 q_t의 어텐션</translation>
    </message>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>, head {head}</source>
        <translation>, 헤드 {head}</translation>
    </message>
    <message>
        <source> (its K/V head {kv}, shared by {group} query heads)</source>
        <translation> (K/V 헤드 {kv}, 쿼리 헤드 {group}개가 공유)</translation>
    </message>
    <message>
        <source>{name} cache{which} ({n} × {width})</source>
        <translation>{name} 캐시{which} ({n} × {width})</translation>
    </message>
    <message>
        <source>{name} of K/V head {kv} ({n} × {width})</source>
        <translation>K/V 헤드 {kv}의 {name} ({n} × {width})</translation>
    </message>
    <message>
        <source>pad</source>
        <translation>pad</translation>
    </message>
</context>
<context>
    <name>kv.controls</name>
    <message>
        <source>first</source>
        <translation>처음</translation>
    </message>
    <message>
        <source>First step (Home)</source>
        <translation>첫 단계 (Home)</translation>
    </message>
    <message>
        <source>back</source>
        <translation>뒤로</translation>
    </message>
    <message>
        <source>Step back (Left)</source>
        <translation>한 단계 뒤로 (←)</translation>
    </message>
    <message>
        <source>play</source>
        <translation>재생</translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation>재생 (Space)</translation>
    </message>
    <message>
        <source>pause</source>
        <translation>정지</translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation>일시 정지 (Space)</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>앞으로</translation>
    </message>
    <message>
        <source>Step forward (Right)</source>
        <translation>한 단계 앞으로 (→)</translation>
    </message>
    <message>
        <source>last</source>
        <translation>끝</translation>
    </message>
    <message>
        <source>Last step (End)</source>
        <translation>마지막 단계 (End)</translation>
    </message>
    <message>
        <source> steps/s</source>
        <translation> 단계/초</translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation>재생 속도</translation>
    </message>
    <message>
        <source>Jump to a step</source>
        <translation>단계로 이동</translation>
    </message>
    <message>
        <source>Which head&apos;s K and V to show</source>
        <translation>어느 헤드의 K, V를 볼지</translation>
    </message>
    <message>
        <source>Scrub through the steps (Left / Right, PgUp / PgDn)</source>
        <translation>단계를 앞뒤로 이동 (←/→, PgUp/PgDn)</translation>
    </message>
    <message>
        <source>speed</source>
        <translation>속도</translation>
    </message>
    <message>
        <source>jump to step</source>
        <translation>이동할 단계</translation>
    </message>
    <message>
        <source>K, V of</source>
        <translation>K, V:</translation>
    </message>
    <message>
        <source>all heads (concatenated)</source>
        <translation>모든 헤드 (이어 붙임)</translation>
    </message>
    <message>
        <source>head {head}</source>
        <translation>헤드 {head}</translation>
    </message>
    <message>
        <source>step {step} / {last}</source>
        <translation>단계 {step} / {last}</translation>
    </message>
</context>
<context>
    <name>kv.flops_plot</name>
    <message>
        <source>log scale (FLOPs)</source>
        <translation>로그 눈금 (FLOPs)</translation>
    </message>
    <message>
        <source>cumulative FLOPs up to step t</source>
        <translation>단계 t까지 누적 FLOPs</translation>
    </message>
    <message>
        <source>step t</source>
        <translation>단계 t</translation>
    </message>
    <message>
        <source>cumulative</source>
        <translation>누적</translation>
    </message>
    <message>
        <source>with KV cache (≈ linear)</source>
        <translation>KV 캐시 사용 (≈ 선형)</translation>
    </message>
    <message>
        <source>recomputing the prefix (≈ quadratic)</source>
        <translation>앞부분 재계산 (≈ 이차)</translation>
    </message>
    <message>
        <source>FLOPs up to step t</source>
        <translation>단계 t까지 FLOPs</translation>
    </message>
</context>
<context>
    <name>kv.panel</name>
    <message>
        <source>The KV-cache timeline appears when a trace has been computed.</source>
        <translation>계산이 끝나면 KV 캐시 타임라인이 나타납니다.</translation>
    </message>
</context>
<context>
    <name>kv.text</name>
    <message>
        <source>step {step} / {last}: token “{token}”, tokens cached {cached}</source>
        <translation>단계 {step} / {last}: 토큰 “{token}”, 캐시된 토큰 {cached}개</translation>
    </message>
    <message>
        <source>cache size = 2 · layers · batch · heads · t · d_head · bytes = {numbers} = {total} bytes ({human}, {dtype})</source>
        <translation>캐시 크기 = 2 · 층 · 배치 · 헤드 · t · d_head · 바이트 = {numbers} = {total}바이트 ({human}, {dtype})</translation>
    </message>
    <message>
        <source>FLOPs this step with the cache: 4·2·d² + 2·2·t·d = {numbers} = {total}</source>
        <translation>캐시를 쓸 때 이 단계의 FLOPs: 4·2·d² + 2·2·t·d = {numbers} = {total}</translation>
    </message>
    <message>
        <source>FLOPs this step without it (recompute the {t}-token prefix): 8·t·d² + 4·t²·d = {numbers} = {total}  ({ratio}× the cached step)</source>
        <translation>캐시 없이 이 단계의 FLOPs ({t}토큰 앞부분 재계산): 8·t·d² + 4·t²·d = {numbers} = {total}  (캐시 사용 시의 {ratio}배)</translation>
    </message>
    <message>
        <source>cumulative FLOPs — with cache: {cached} ({cached_h});  without: {full} ({full_h});  saved {saved}</source>
        <translation>누적 FLOPs — 캐시 사용: {cached} ({cached_h});  미사용: {full} ({full_h});  절약 {saved}</translation>
    </message>
    <message>
        <source>cached output = row {row} of the full causal pass: max |difference| = {diff} {mark}</source>
        <translation>캐시 출력 = 전체 인과 계산의 {row}행: 최대 |차이| = {diff} {mark}</translation>
    </message>
</context>
<context>
    <name>learned.adapter_control</name>
    <message>
        <source>targets {targets}</source>
        <translation>대상 {targets}</translation>
    </message>
    <message>
        <source>{v} virtual tokens ⟨p1⟩…⟨p{v}⟩</source>
        <translation>가상 토큰 {v}개 ⟨p1⟩…⟨p{v}⟩</translation>
    </message>
    <message>
        <source>{n} trainable parameters</source>
        <translation>학습 가능한 매개변수 {n}개</translation>
    </message>
    <message>
        <source>adapter: {parts}</source>
        <translation>어댑터: {parts}</translation>
    </message>
    <message>
        <source>Load a PEFT adapter folder</source>
        <translation>PEFT 어댑터 폴더 불러오기</translation>
    </message>
    <message>
        <source>Load adapter…</source>
        <translation>어댑터 불러오기…</translation>
    </message>
    <message>
        <source>A PEFT adapter folder (adapter_config.json + adapter_model.safetensors: LoRA, IA³, prefix or prompt tuning) on the model shown, read without pickle</source>
        <translation>보이는 모델에 붙일 PEFT 어댑터 폴더(adapter_config.json + adapter_model.safetensors: LoRA, IA³, 프리픽스 또는 프롬프트 튜닝)이며, 피클 없이 읽습니다</translation>
    </message>
</context>
<context>
    <name>learned.adapter_views</name>
    <message>
        <source>adapted</source>
        <translation>어댑터 적용</translation>
    </message>
    <message>
        <source>base</source>
        <translation>기반</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>차이</translation>
    </message>
    <message>
        <source>The attention of the model with the adapter</source>
        <translation>어댑터를 붙인 모델의 어텐션</translation>
    </message>
    <message>
        <source>The attention of the base model, without the adapter, on the same tokens</source>
        <translation>같은 토큰에 대한, 어댑터 없는 기반 모델의 어텐션</translation>
    </message>
    <message>
        <source>adapted − base, cell by cell (red: more attention with the adapter, blue: less)</source>
        <translation>칸마다 어댑터 적용 − 기반 (빨강: 어댑터로 어텐션 증가, 파랑: 감소)</translation>
    </message>
    <message>
        <source>Adapter:</source>
        <translation>어댑터:</translation>
    </message>
    <message>
        <source>computing the base model on the same tokens…</source>
        <translation>같은 토큰으로 기반 모델을 계산하는 중…</translation>
    </message>
    <message>
        <source>changed most (max |Δ|): {heads}</source>
        <translation>가장 많이 바뀐 헤드 (최대 |Δ|): {heads}</translation>
    </message>
    <message>
        <source>Δ = adapted − base, one scale ±{top} · {changed}</source>
        <translation>Δ = 어댑터 적용 − 기반, 같은 눈금 ±{top} · {changed}</translation>
    </message>
    <message>
        <source>next token: before → after the adapter</source>
        <translation>다음 토큰: 어댑터 전 → 후</translation>
    </message>
</context>
<context>
    <name>learned.generation_view</name>
    <message>
        <source>next token, top 5</source>
        <translation>다음 토큰, 상위 5개</translation>
    </message>
    <message>
        <source>generate </source>
        <translation>생성할 토큰 </translation>
    </message>
    <message>
        <source> tokens</source>
        <translation>개</translation>
    </message>
    <message>
        <source>step through with the KV cache</source>
        <translation>KV 캐시로 한 단계씩 생성</translation>
    </message>
    <message>
        <source>KV head </source>
        <translation>KV 헤드 </translation>
    </message>
    <message>
        <source>position</source>
        <translation>위치</translation>
    </message>
    <message>
        <source>{name} cache</source>
        <translation>{name} 캐시</translation>
    </message>
    <message>
        <source>Press the button to feed the sentence through the decoder token by token and let it continue.</source>
        <translation>버튼을 누르면 문장을 디코더에 토큰 하나씩 넣은 뒤, 모델이 이어서 생성합니다.</translation>
    </message>
    <message>
        <source>Generation needs a decoder: choose smollm2-135m, or a model trained in the Train tab, under Model source.</source>
        <translation>생성에는 디코더가 필요합니다: 모델 소스에서 smollm2-135m 또는 학습 탭에서 학습한 모델을 선택하세요.</translation>
    </message>
    <message>
        <source>(red: chosen by the model)</source>
        <translation>(빨간색: 모델이 고른 토큰)</translation>
    </message>
    <message>
        <source>generated by the model</source>
        <translation>모델이 생성</translation>
    </message>
    <message>
        <source>from the sentence</source>
        <translation>문장에서</translation>
    </message>
    <message>
        <source>&lt;b&gt;step {position}&lt;/b&gt;: fed {token} ({kind})</source>
        <translation>&lt;b&gt;{position}단계&lt;/b&gt;: {token} 입력 ({kind})</translation>
    </message>
    <message>
        <source>the real cache of layer {layer}, head {head}, positions 0–{end}</source>
        <translation>레이어 {layer}, 헤드 {head}의 실제 캐시, 위치 0–{end}</translation>
    </message>
    <message>
        <source>the real cache of layer {layer}, KV head {head} (shared by query heads {first}–{last}), positions 0–{end}</source>
        <translation>레이어 {layer}, KV 헤드 {head}의 실제 캐시 (쿼리 헤드 {first}–{last}가 공유), 위치 0–{end}</translation>
    </message>
</context>
<context>
    <name>learned.info</name>
    <message>
        <source>{name} · layer {layer} of 0–{last} · {n} tokens · {ms} ms on {device}</source>
        <translation>{name} · 레이어 {layer} (0–{last}) · 토큰 {n}개 · {device}에서 {ms} ms</translation>
    </message>
    <message>
        <source> · next: {top}</source>
        <translation> · 다음: {top}</translation>
    </message>
    <message>
        <source> · loss {loss} nats</source>
        <translation> · 손실 {loss} nats</translation>
    </message>
    <message>
        <source>previous layer</source>
        <translation>이전 레이어</translation>
    </message>
    <message>
        <source>next layer</source>
        <translation>다음 레이어</translation>
    </message>
    <message>
        <source>{busy} (until it is ready, the picture is the previous one)</source>
        <translation>{busy} (준비될 때까지 이전 그림을 보여 줍니다)</translation>
    </message>
</context>
<context>
    <name>learned.lora_curve</name>
    <message>
        <source>Next-token loss on the sentences</source>
        <translation>문장에 대한 다음 토큰 손실</translation>
    </message>
    <message>
        <source>step</source>
        <translation>스텝</translation>
    </message>
    <message>
        <source>loss (nats)</source>
        <translation>손실 (nats)</translation>
    </message>
</context>
<context>
    <name>learned.lora_dialog</name>
    <message>
        <source>Fine-tune a LoRA on a few sentences you type (CPU, small models): the model shown stays unchanged, only A and B train</source>
        <translation>입력한 몇 개의 문장으로 LoRA를 미세조정합니다 (CPU, 작은 모델): 보이는 모델은 그대로이고 A와 B만 학습합니다</translation>
    </message>
    <message>
        <source>rank r</source>
        <translation>랭크 r</translation>
    </message>
    <message>
        <source>α</source>
        <translation>α</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>스텝</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>학습률</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>시드</translation>
    </message>
    <message>
        <source>Sentences to fine-tune on, one per line (tokenized by the model&apos;s own tokenizer; the loss is next-token cross-entropy):</source>
        <translation>미세조정할 문장, 한 줄에 하나씩 (모델 자체의 토크나이저로 토큰화하며, 손실은 다음 토큰 교차 엔트로피입니다):</translation>
    </message>
    <message>
        <source>a few sentences, one per line</source>
        <translation>문장 몇 개, 한 줄에 하나씩</translation>
    </message>
    <message>
        <source>Target modules (peft&apos;s target_modules):</source>
        <translation>대상 모듈 (peft의 target_modules):</translation>
    </message>
    <message>
        <source>ΔW = (α / r)·B·A has rank at most r: r·(in + out) trainable numbers per module</source>
        <translation>ΔW = (α / r)·B·A의 rank는 최대 r입니다: 모듈마다 학습 가능한 숫자 r·(in + out)개</translation>
    </message>
    <message>
        <source>α / r scales the update B·A</source>
        <translation>α / r이 업데이트 B·A의 크기를 조절합니다</translation>
    </message>
    <message>
        <source>AdamW&apos;s learning rate on A and B</source>
        <translation>A와 B에 대한 AdamW의 학습률</translation>
    </message>
    <message>
        <source>the seed A is drawn with (B starts at 0: step 1 is the base)</source>
        <translation>A를 뽑는 시드 (B는 0에서 시작하므로 스텝 1은 기본 모델입니다)</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>시작</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Save adapter…</source>
        <translation>어댑터 저장…</translation>
    </message>
    <message>
        <source>adapter_config.json + adapter_model.safetensors in peft&apos;s layout, for PeftModel.from_pretrained on the same checkpoint</source>
        <translation>peft 형식의 adapter_config.json + adapter_model.safetensors: 같은 체크포인트에서 PeftModel.from_pretrained로 불러올 수 있습니다</translation>
    </message>
    <message>
        <source>Show it</source>
        <translation>보기</translation>
    </message>
    <message>
        <source>Load the saved adapter onto its base model (saved first if it is not)</source>
        <translation>저장한 어댑터를 기본 모델에 불러옵니다 (아직 저장하지 않았으면 먼저 저장합니다)</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>닫기</translation>
    </message>
    <message>
        <source>Fine-tune LoRA — {model}</source>
        <translation>LoRA 미세조정 — {model}</translation>
    </message>
    <message>
        <source>Base: {model}. It stays unchanged: only the LoRA matrices A and B train.</source>
        <translation>기본 모델: {model}. 이 모델은 바뀌지 않고 LoRA 행렬 A와 B만 학습합니다.</translation>
    </message>
    <message>
        <source>loading the model and the sentences…</source>
        <translation>모델과 문장을 불러오는 중…</translation>
    </message>
    <message>
        <source>step {step} of {steps} · loss {loss:.3f}</source>
        <translation>스텝 {step}/{steps} · 손실 {loss:.3f}</translation>
    </message>
    <message>
        <source>cancelled: nothing was kept</source>
        <translation>취소됨: 아무것도 남기지 않았습니다</translation>
    </message>
    <message>
        <source>{n} trainable parameters · loss {first:.3f} → {last:.3f} · {seconds:.1f} s</source>
        <translation>학습 가능한 매개변수 {n}개 · 손실 {first:.3f} → {last:.3f} · {seconds:.1f}초</translation>
    </message>
    <message>
        <source>saved to {folder}</source>
        <translation>{folder}에 저장했습니다</translation>
    </message>
    <message>
        <source>Save the adapter into a folder</source>
        <translation>어댑터를 저장할 폴더</translation>
    </message>
    <message>
        <source>{folder} holds an adapter already. Replace it?</source>
        <translation>{folder}에 이미 어댑터가 있습니다. 바꿀까요?</translation>
    </message>
    <message>
        <source>Replace the adapter?</source>
        <translation>어댑터를 바꿀까요?</translation>
    </message>
    <message>
        <source>Fine-tune LoRA…</source>
        <translation>LoRA 미세조정…</translation>
    </message>
</context>
<context>
    <name>learned.overview</name>
    <message>
        <source>the sentence</source>
        <translation>입력 문장</translation>
    </message>
    <message>
        <source>repeat the sentence</source>
        <translation>문장 반복</translation>
    </message>
    <message>
        <source>random tokens repeated</source>
        <translation>무작위 토큰 반복</translation>
    </message>
    <message>
        <source>frame = role:</source>
        <translation>테두리 = 역할:</translation>
    </message>
    <message>
        <source>{name} · {n} tokens · strongest: {parts}</source>
        <translation>{name} · 토큰 {n}개 · 가장 강한 헤드: {parts}</translation>
    </message>
    <message>
        <source>Choose a pretrained model under Controls → Model source</source>
        <translation>설정 → 모델 소스에서 사전학습 모델을 선택하세요</translation>
    </message>
    <message>
        <source>off (right-click: on again)</source>
        <translation>꺼짐 (오른쪽 클릭: 다시 켜기)</translation>
    </message>
    <message>
        <source>right-click: switch it off</source>
        <translation>오른쪽 클릭: 끄기</translation>
    </message>
    <message>
        <source>changed by the adapter: #{rank}, max |Δ| {value}</source>
        <translation>어댑터로 바뀐 정도: {rank}위, 최대 |Δ| {value}</translation>
    </message>
    <message>
        <source>layer {layer} head {head}: {role} {score}
{others}
click to open it; {state}</source>
        <translation>레이어 {layer} 헤드 {head}: {role} {score}
{others}
클릭: 크게 보기; {state}</translation>
    </message>
    <message>
        <source>all heads on</source>
        <translation>모든 헤드 켜기</translation>
    </message>
    <message>
        <source>switch every head on again (right-click a tile to switch it off)</source>
        <translation>모든 헤드를 다시 켭니다 (타일을 오른쪽 클릭하면 그 헤드를 끕니다)</translation>
    </message>
    <message>
        <source>new random tokens</source>
        <translation>새 무작위 토큰</translation>
    </message>
    <message>
        <source>Right-click a tile to switch that head off and see what it changes.</source>
        <translation>타일을 오른쪽 클릭해 그 헤드를 끄고 무엇이 달라지는지 보세요.</translation>
    </message>
    <message>
        <source>The overview shows a pretrained model: choose one under Model source.</source>
        <translation>개요는 사전학습 모델을 보여 줍니다: 모델 소스에서 하나를 선택하세요.</translation>
    </message>
    <message>
        <source>changed most by the adapter (max |adapted − base| weight): {heads}</source>
        <translation>어댑터로 가장 많이 바뀐 헤드 (최대 |어댑터 적용 − 기반| 가중치): {heads}</translation>
    </message>
    <message>
        <source>{n} head off: measuring…</source>
        <translation>헤드 {n}개 끔: 측정 중…</translation>
    </message>
    <message>
        <source>{n} heads off: measuring…</source>
        <translation>헤드 {n}개 끔: 측정 중…</translation>
    </message>
</context>
<context>
    <name>learned.source</name>
    <message>
        <source>random (course)</source>
        <translation>무작위 (강의)</translation>
    </message>
    <message>
        <source>{n} heads</source>
        <translation>헤드 {n}개</translation>
    </message>
    <message>
        <source> ({n} KV heads)</source>
        <translation> (KV 헤드 {n}개)</translation>
    </message>
    <message>
        <source>{kind} · {layers} layers × {heads} · d_model {d_model} · d_head {d_head}</source>
        <translation>{kind} · 레이어 {layers}개 × {heads} · d_model {d_model} · d_head {d_head}</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>인코더</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>디코더</translation>
    </message>
    <message>
        <source>free text, tokenized by the model&apos;s own tokenizer</source>
        <translation>자유 텍스트 (모델 자체의 토크나이저로 토큰화합니다)</translation>
    </message>
    <message>
        <source>{name} (not installed)</source>
        <translation>{name} (설치되지 않음)</translation>
    </message>
    <message>
        <source>padding: + </source>
        <translation>패딩: + </translation>
    </message>
    <message>
        <source> tokens (masked as keys)</source>
        <translation> 토큰 (키에서 가려짐)</translation>
    </message>
    <message>
        <source>padding: none</source>
        <translation>패딩: 없음</translation>
    </message>
    <message>
        <source>Append padding tokens, as a batch pads a shorter sentence; the attention mask gives them weight 0</source>
        <translation>배치가 짧은 문장을 채우듯 패딩 토큰을 덧붙입니다. 어텐션 마스크가 그 가중치를 0으로 만듭니다</translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation>모델 폴더 열기…</translation>
    </message>
    <message>
        <source>A Hugging Face model folder (saved with save_pretrained), opened offline</source>
        <translation>Hugging Face 모델 폴더(save_pretrained로 저장)를 오프라인으로 엽니다</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Stop loading and go back to the model shown before</source>
        <translation>불러오기를 멈추고 이전에 보던 모델로 돌아갑니다</translation>
    </message>
    <message>
        <source>Open model folder</source>
        <translation>모델 폴더 열기</translation>
    </message>
    <message>
        <source>trained (this session)</source>
        <translation>학습된 모델 (이번 세션)</translation>
    </message>
    <message>
        <source>train or load a model in the Train tab first</source>
        <translation>먼저 학습 탭에서 모델을 학습하거나 불러오세요</translation>
    </message>
    <message>
        <source>layer {layer} of 0–{last}</source>
        <translation>레이어 {layer} (0–{last})</translation>
    </message>
    <message>
        <source>native</source>
        <translation>앱 자체 계산</translation>
    </message>
    <message>
        <source>through transformers</source>
        <translation>transformers로 계산</translation>
    </message>
    <message>
        <source>cannot be opened</source>
        <translation>열 수 없음</translation>
    </message>
    <message>
        <source>{n} trainable parameters</source>
        <translation>학습 가능한 매개변수 {n}개</translation>
    </message>
</context>
<context>
    <name>lessons.panel</name>
    <message>
        <source>Previous step (PgUp, ←)</source>
        <translation>이전 단계 (PgUp, ←)</translation>
    </message>
    <message>
        <source>Next step (PgDn, →, Space)</source>
        <translation>다음 단계 (PgDn, →, Space)</translation>
    </message>
    <message>
        <source>Choose a lesson…</source>
        <translation>수업을 고르세요…</translation>
    </message>
    <message>
        <source>Leave lesson</source>
        <translation>수업 나가기</translation>
    </message>
    <message>
        <source>Back to the lesson</source>
        <translation>수업으로 돌아가기</translation>
    </message>
    <message>
        <source>Choose a lesson in the list or open a lesson file (Lessons menu). PgDn / PgUp, → / ← and Space move through its steps.</source>
        <translation>목록에서 수업을 고르거나 수업 파일을 여세요 (수업 메뉴). PgDn / PgUp, → / ←, Space로 단계를 넘깁니다.</translation>
    </message>
    <message>
        <source>Question: </source>
        <translation>질문: </translation>
    </message>
    <message>
        <source>Hide answer</source>
        <translation>답 숨기기</translation>
    </message>
    <message>
        <source>Show answer</source>
        <translation>답 보기</translation>
    </message>
</context>
<context>
    <name>models</name>
    <message>
        <source>BERT encoder, fp32 safetensors, WordPiece (uncased, English)</source>
        <translation>BERT 인코더, fp32 safetensors, WordPiece (소문자로 바꿈, 영어)</translation>
    </message>
    <message>
        <source>multilingual BERT encoder, 4-bit (Q4_0), SentencePiece Unigram (splits Korean well)</source>
        <translation>다국어 BERT 인코더, 4비트 (Q4_0), SentencePiece Unigram (한국어를 잘 나눔)</translation>
    </message>
    <message>
        <source>Llama decoder (SmolLM2-135M-Instruct), 4-bit GGUF (Q4_1), byte-level BPE, English</source>
        <translation>Llama 디코더 (SmolLM2-135M-Instruct), 4비트 GGUF (Q4_1), 바이트 수준 BPE, 영어</translation>
    </message>
</context>
<context>
    <name>pe.curves</name>
    <message>
        <source>dim {dim} {fn} (i={i})</source>
        <translation>차원 {dim} {fn} (i={i})</translation>
    </message>
    <message>
        <source>PE columns across positions</source>
        <translation>위치에 따른 PE 열</translation>
    </message>
    <message>
        <source>position</source>
        <translation>위치</translation>
    </message>
    <message>
        <source>PE value</source>
        <translation>PE 값</translation>
    </message>
</context>
<context>
    <name>pe.inputs</name>
    <message>
        <source>positional encoding is off — X is projected as is</source>
        <translation>위치 인코딩 꺼짐 — X를 그대로 투영합니다</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>차원</translation>
    </message>
    <message>
        <source>token</source>
        <translation>토큰</translation>
    </message>
    <message>
        <source>PE</source>
        <translation>PE</translation>
    </message>
    <message>
        <source>X + PE</source>
        <translation>X + PE</translation>
    </message>
    <message>
        <source>PE (not added)</source>
        <translation>PE (안 더함)</translation>
    </message>
    <message>
        <source>X (as is)</source>
        <translation>X (그대로)</translation>
    </message>
</context>
<context>
    <name>pe.panel</name>
    <message>
        <source>How many positions of the table to show (rows)</source>
        <translation>표에 보일 위치 수 (행)</translation>
    </message>
    <message>
        <source>Columns drawn as curves, e.g. 0, 1, 2, 3, 6</source>
        <translation>곡선으로 그릴 열, 예: 0, 1, 2, 3, 6</translation>
    </message>
    <message>
        <source>PE table</source>
        <translation>PE 표</translation>
    </message>
    <message>
        <source>dimension</source>
        <translation>차원</translation>
    </message>
    <message>
        <source>position</source>
        <translation>위치</translation>
    </message>
    <message>
        <source>PE(i) · PE(j)</source>
        <translation>PE(i) · PE(j)</translation>
    </message>
    <message>
        <source>position j</source>
        <translation>위치 j</translation>
    </message>
    <message>
        <source>position i</source>
        <translation>위치 i</translation>
    </message>
    <message>
        <source>(or click a column of the table to add / remove it)</source>
        <translation>(표의 열을 클릭해도 추가 / 제거됩니다)</translation>
    </message>
    <message>
        <source>positions shown:</source>
        <translation>표시할 위치:</translation>
    </message>
    <message>
        <source>   curves for dims:</source>
        <translation>   곡선 차원:</translation>
    </message>
    <message>
        <source>PE table ({p} positions × {d} dims)</source>
        <translation>PE 표 (위치 {p}개 × 차원 {d}개)</translation>
    </message>
    <message>
        <source>PE(i) · PE(j)  (diagonal = {diagonal})</source>
        <translation>PE(i) · PE(j)  (대각선 = {diagonal})</translation>
    </message>
</context>
<context>
    <name>plotting.colormaps</name>
    <message>
        <source>cividis (colour-blind safe)</source>
        <translation>cividis (색각 이상 안전)</translation>
    </message>
    <message>
        <source>greyscale</source>
        <translation>회색조</translation>
    </message>
</context>
<context>
    <name>presets</name>
    <message>
        <source>Course Lab 3 (나는 학교에 버스로 갔다)</source>
        <translation>강의 Lab 3 (나는 학교에 버스로 갔다)</translation>
    </message>
    <message>
        <source>d_model 8, 2 heads, seed 1, scaled: the numbers printed in the course.</source>
        <translation>d_model 8, 헤드 2개, 시드 1, 스케일링: 강의 자료에 나온 숫자 그대로.</translation>
    </message>
    <message>
        <source>No scaling at d_model 512 (saturated softmax)</source>
        <translation>d_model 512에서 스케일링 없음 (포화된 softmax)</translation>
    </message>
    <message>
        <source>Weights start at 1/√d_model, as in real models, so q·k has variance d_head = 256. Without ÷√d_head, softmax puts almost all weight on one key.</source>
        <translation>실제 모델처럼 가중치를 1/√d_model로 초기화하므로 q·k의 분산은 d_head = 256입니다. ÷√d_head가 없으면 softmax가 거의 모든 가중치를 한 키에 줍니다.</translation>
    </message>
    <message>
        <source>Scaled at d_model 512 (compare with the one above)</source>
        <translation>d_model 512에서 스케일링 (위 항목과 비교)</translation>
    </message>
    <message>
        <source>The same weights with ÷√d_head: score variance is back to 1 and the weights spread out. (With the course&apos;s ×0.5 weights scores grow with d_model too, and even scaled softmax saturates: switch the weight init to see it.)</source>
        <translation>같은 가중치에 ÷√d_head: 점수 분산이 다시 1이 되고 가중치가 고르게 퍼집니다. (강의의 ×0.5 가중치에서는 점수가 d_model과 함께 커져 스케일링해도 softmax가 포화됩니다. 가중치 초기화를 바꿔 확인해 보세요.)</translation>
    </message>
    <message>
        <source>Causal decoder (GPT-style mask)</source>
        <translation>인과 디코더 (GPT 방식 마스크)</translation>
    </message>
    <message>
        <source>Each token attends only to itself and earlier tokens: the upper triangle is masked.</source>
        <translation>각 토큰은 자신과 앞선 토큰에만 어텐션합니다: 위쪽 삼각형이 가려집니다.</translation>
    </message>
    <message>
        <source>Padding mask</source>
        <translation>패딩 마스크</translation>
    </message>
    <message>
        <source>The last two tokens are padding: no query may attend to them.</source>
        <translation>마지막 두 토큰은 패딩입니다: 어떤 쿼리도 이들에 어텐션할 수 없습니다.</translation>
    </message>
    <message>
        <source>Eight heads, one sentence</source>
        <translation>헤드 8개, 한 문장</translation>
    </message>
    <message>
        <source>d_model 64 split into 8 heads of 8: each head finds its own pattern.</source>
        <translation>d_model 64를 크기 8인 헤드 8개로 나눕니다: 헤드마다 자기 패턴을 찾습니다.</translation>
    </message>
</context>
<context>
    <name>report</name>
    <message>
        <source>tokens: {tokens}  (n = {n})</source>
        <translation>토큰: {tokens}  (n = {n})</translation>
    </message>
    <message>
        <source>d_model {d_model}, heads {heads}, d_head {d_head}, seed {seed}, scaled {scaled}, causal {causal}, padding {padding}, positional {positional}</source>
        <translation>d_model {d_model}, 헤드 {heads}개, d_head {d_head}, 시드 {seed}, 스케일링 {scaled}, 인과 마스크 {causal}, 패딩 {padding}, 위치 인코딩 {positional}</translation>
    </message>
    <message>
        <source>off</source>
        <translation>끔</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>shapes: X {x} → Q,K,V {q} → split {split} → heads {heads} → concat {concat} → output {output}</source>
        <translation>모양: X {x} → Q,K,V {q} → 헤드로 나눔 {split} → 헤드 출력 {heads} → 이어 붙임 {concat} → 출력 {output}</translation>
    </message>
    <message>
        <source>parameters: {formula} = {count}</source>
        <translation>파라미터: {formula} = {count}</translation>
    </message>
    <message>
        <source>device: {device} ({ms} ms)</source>
        <translation>장치: {device} ({ms} ms)</translation>
    </message>
    <message>
        <source>head {head} weights (rows = query, columns = key):</source>
        <translation>헤드 {head} 가중치 (행 = 쿼리, 열 = 키):</translation>
    </message>
    <message>
        <source>(all masked)</source>
        <translation>(모두 가려짐)</translation>
    </message>
    <message>
        <source>most attended: </source>
        <translation>가장 많이 참고: </translation>
    </message>
    <message>
        <source>entropy (nats): </source>
        <translation>엔트로피 (nats): </translation>
    </message>
    <message>
        <source>fully masked rows (weights set to 0): </source>
        <translation>모두 가려진 행 (가중치 0): </translation>
    </message>
    <message>
        <source>KV cache: step token cached bytes flops(cache) flops(recompute) max|diff|</source>
        <translation>KV 캐시: 단계 토큰 캐시됨 바이트 flops(캐시) flops(재계산) max|차이|</translation>
    </message>
</context>
<context>
    <name>settings</name>
    <message>
        <source>unknown colormap {name} in settings; using {default}</source>
        <translation>설정의 색상표 {name}을(를) 알 수 없어 {default}을(를) 사용합니다</translation>
    </message>
    <message>
        <source>settings path {path} is not a regular file</source>
        <translation>설정 경로 {path}은(는) 일반 파일이 아닙니다</translation>
    </message>
    <message>
        <source>settings file {name} is not UTF-8 text; using defaults</source>
        <translation>설정 파일 {name}이(가) UTF-8 텍스트가 아니어서 기본값을 사용합니다</translation>
    </message>
    <message>
        <source>settings file {path} is too large; using defaults</source>
        <translation>설정 파일 {path}이(가) 너무 커서 기본값을 사용합니다</translation>
    </message>
    <message>
        <source>could not read settings ({error})</source>
        <translation>설정을 읽을 수 없습니다 ({error})</translation>
    </message>
    <message>
        <source>settings file {name} is not valid JSON; using defaults</source>
        <translation>설정 파일 {name}이(가) 올바른 JSON이 아니어서 기본값을 사용합니다</translation>
    </message>
    <message>
        <source>{note}; the file could not be kept aside</source>
        <translation>{note}. 이 파일을 따로 보관할 수 없었습니다</translation>
    </message>
    <message>
        <source>{note} (the old file is kept as {backup})</source>
        <translation>{note} (이전 파일은 {backup}(으)로 보관했습니다)</translation>
    </message>
    <message>
        <source>settings file does not hold a JSON object; using defaults</source>
        <translation>설정 파일에 JSON 객체가 없어 기본값을 사용합니다</translation>
    </message>
    <message>
        <source>saved window geometry ignored</source>
        <translation>저장된 창 크기와 위치를 무시했습니다</translation>
    </message>
    <message>
        <source>saved window layout ignored</source>
        <translation>저장된 창 배치를 무시했습니다</translation>
    </message>
    <message>
        <source>saved colormap ignored</source>
        <translation>저장된 색상표를 무시했습니다</translation>
    </message>
    <message>
        <source>saved show-values mode ignored</source>
        <translation>저장된 값 표시 방식을 무시했습니다</translation>
    </message>
    <message>
        <source>saved presentation flag ignored</source>
        <translation>저장된 발표 모드 설정을 무시했습니다</translation>
    </message>
    <message>
        <source>saved topic settings ignored</source>
        <translation>저장된 주제 설정을 무시했습니다</translation>
    </message>
    <message>
        <source>saved training settings ignored</source>
        <translation>저장된 학습 설정을 무시했습니다</translation>
    </message>
    <message>
        <source>saved language ignored</source>
        <translation>저장된 언어 설정을 무시했습니다</translation>
    </message>
    <message>
        <source>saved recent model folders ignored</source>
        <translation>저장된 최근 모델 폴더 목록을 무시했습니다</translation>
    </message>
    <message>
        <source>saved config ignored ({error})</source>
        <translation>저장된 구성을 무시했습니다 ({error})</translation>
    </message>
    <message>
        <source>{name} is not an attention-explorer settings file</source>
        <translation>{name}은(는) attention-explorer 설정 파일이 아닙니다</translation>
    </message>
    <message>
        <source>{reason}: left untouched, using defaults; settings will not be saved</source>
        <translation>{reason}: 파일은 그대로 두고 기본값을 사용합니다. 설정은 저장되지 않습니다</translation>
    </message>
    <message>
        <source>settings ignored ({error}); using defaults</source>
        <translation>설정을 무시했습니다 ({error}). 기본값을 사용합니다</translation>
    </message>
    <message>
        <source>Settings: {problems}</source>
        <translation>설정: {problems}</translation>
    </message>
    <message>
        <source>saved topic setting {name} ignored</source>
        <translation>저장된 주제 설정 {name}을(를) 무시했습니다</translation>
    </message>
</context>
<context>
    <name>topics</name>
    <message>
        <source>Cross-attention</source>
        <translation>교차 어텐션</translation>
    </message>
    <message>
        <source>Masks</source>
        <translation>마스크</translation>
    </message>
    <message>
        <source>Head pruning</source>
        <translation>헤드 가지치기</translation>
    </message>
    <message>
        <source>Encoder block</source>
        <translation>인코더 블록</translation>
    </message>
</context>
<context>
    <name>topics.cross_view</name>
    <message>
        <source>encoder sentence</source>
        <translation>인코더 문장</translation>
    </message>
    <message>
        <source>%1 = padding</source>
        <translation>%1 = 패딩</translation>
    </message>
    <message>
        <source>encoder:</source>
        <translation>인코더:</translation>
    </message>
    <message>
        <source>mask ({n} × {m}): pale = may attend, dark = masked</source>
        <translation>마스크 ({n} × {m}): 밝음 = 어텐션 가능, 어두움 = 가려짐</translation>
    </message>
    <message>
        <source>decoder (query)</source>
        <translation>디코더 (쿼리)</translation>
    </message>
    <message>
        <source>encoder (key)</source>
        <translation>인코더 (키)</translation>
    </message>
    <message>
        <source>head {h}: weights ({n} × {m})</source>
        <translation>헤드 {h}: 가중치 ({n} × {m})</translation>
    </message>
    <message>
        <source>showing heads 0 … {last} of {heads}</source>
        <translation>헤드 {heads}개 중 0 … {last} 표시</translation>
    </message>
    <message>
        <source>every encoder token is padding: all weights are 0 (no NaN), outputs are zero vectors</source>
        <translation>모든 인코더 토큰이 패딩입니다: 가중치는 모두 0 (NaN 아님), 출력은 영벡터입니다</translation>
    </message>
</context>
<context>
    <name>topics.encoder_view</name>
    <message>
        <source>Post-LN (2017)</source>
        <translation>Post-LN (2017)</translation>
    </message>
    <message>
        <source>Pre-LN (GPT-2)</source>
        <translation>Pre-LN (GPT-2)</translation>
    </message>
    <message>
        <source>GELU</source>
        <translation>GELU</translation>
    </message>
    <message>
        <source>ReLU</source>
        <translation>ReLU</translation>
    </message>
    <message>
        <source>d_ff = 4·d_model</source>
        <translation>d_ff = 4·d_model</translation>
    </message>
    <message>
        <source>LayerNorm:</source>
        <translation>LayerNorm:</translation>
    </message>
    <message>
        <source>FFN:</source>
        <translation>FFN:</translation>
    </message>
    <message>
        <source>d_ff</source>
        <translation>d_ff</translation>
    </message>
    <message>
        <source>mean ‖token‖ per stage  (√d_model = {root})</source>
        <translation>단계별 평균 ‖토큰‖  (√d_model = {root})</translation>
    </message>
    <message>
        <source>mean ‖token‖ per stage · {mode}, {act}, d_ff {d_ff}  (√d_model = {root})</source>
        <translation>단계별 평균 ‖토큰‖ · {mode}, {act}, d_ff {d_ff}  (√d_model = {root})</translation>
    </message>
    <message>
        <source>‖token‖ per stage and token</source>
        <translation>단계·토큰별 ‖토큰‖</translation>
    </message>
    <message>
        <source>x (input)</source>
        <translation>x (입력)</translation>
    </message>
    <message>
        <source>block output</source>
        <translation>블록 출력</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>어텐션</translation>
    </message>
    <message>
        <source>x + attention</source>
        <translation>x + 어텐션</translation>
    </message>
    <message>
        <source>h = x + attention</source>
        <translation>h = x + 어텐션</translation>
    </message>
    <message>
        <source>h = LN(x + attention)</source>
        <translation>h = LN(x + 어텐션)</translation>
    </message>
    <message>
        <source>output = h + FFN</source>
        <translation>출력 = h + FFN</translation>
    </message>
    <message>
        <source>output = LN(h + FFN)</source>
        <translation>출력 = LN(h + FFN)</translation>
    </message>
</context>
<context>
    <name>topics.masking</name>
    <message>
        <source>query {row} ({token}) may only see keys {seen} (causal), and all of them are padding: its weights are all 0 and its output is the zero vector.</source>
        <translation>{row}번 행({token})에는 열린 키가 없습니다: 가중치는 모두 0(NaN 아님)이고 출력은 영벡터입니다.</translation>
    </message>
    <message>
        <source>query {row} ({token}): every key is padding, so softmax would be 0/0; its weights are all 0 and its output is the zero vector.</source>
        <translation>{row}번 행({token})에는 열린 키가 없습니다: 가중치는 모두 0(NaN 아님)이고 출력은 영벡터입니다.</translation>
    </message>
</context>
<context>
    <name>topics.masks_view</name>
    <message>
        <source>weights of head</source>
        <translation>가중치를 볼 헤드</translation>
    </message>
    <message>
        <source>none</source>
        <translation>없음</translation>
    </message>
    <message>
        <source>padding mask (keys {pad}) · pale = open, dark = masked</source>
        <translation>패딩 마스크 (키 {pad}) · 밝음 = 열림, 어두움 = 가려짐</translation>
    </message>
    <message>
        <source>causal mask</source>
        <translation>인과 마스크</translation>
    </message>
    <message>
        <source> (off: all open)</source>
        <translation> (꺼짐: 모두 열림)</translation>
    </message>
    <message>
        <source>combined = padding AND causal</source>
        <translation>결합 = 패딩 AND 인과</translation>
    </message>
    <message>
        <source>query</source>
        <translation>쿼리</translation>
    </message>
    <message>
        <source>key</source>
        <translation>키</translation>
    </message>
    <message>
        <source>… and {count} more rows like these</source>
        <translation>… 이런 행이 {count}개 더 있습니다</translation>
    </message>
    <message>
        <source>head {head}: weights (rows sum to 1, masked = 0)</source>
        <translation>헤드 {head}: 가중치 (행의 합 = 1, 가려진 칸 = 0)</translation>
    </message>
</context>
<context>
    <name>topics.peft_view</name>
    <message>
        <source>prefix tuning</source>
        <translation>프리픽스 튜닝</translation>
    </message>
    <message>
        <source>prompt tuning</source>
        <translation>프롬프트 튜닝</translation>
    </message>
    <message>
        <source>B = 0 (peft&apos;s start)</source>
        <translation>B = 0 (peft의 시작값)</translation>
    </message>
    <message>
        <source>B drawn by the seed</source>
        <translation>시드로 뽑은 B</translation>
    </message>
    <message>
        <source>B trained (toy task)</source>
        <translation>학습한 B (연습 과제)</translation>
    </message>
    <message>
        <source>on</source>
        <translation>대상</translation>
    </message>
    <message>
        <source>rank r</source>
        <translation>랭크 r</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>스텝</translation>
    </message>
    <message>
        <source>strength</source>
        <translation>세기</translation>
    </message>
    <message>
        <source>virtual tokens v</source>
        <translation>가상 토큰 v</translation>
    </message>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>adapter seed</source>
        <translation>어댑터 시드</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>층</translation>
    </message>
    <message>
        <source>ΔW = {scale}·Aᵀ·Bᵀ {shape}</source>
        <translation>ΔW = {scale}·Aᵀ·Bᵀ {shape}</translation>
    </message>
    <message>
        <source>σᵢ: W grey, ΔW blue</source>
        <translation>σᵢ: W 회색, ΔW 파랑</translation>
    </message>
    <message>
        <source>σᵢ of ΔW (of W: up to d_model {limit})</source>
        <translation>ΔW의 σᵢ (W의 것은 d_model {limit}까지)</translation>
    </message>
    <message>
        <source>l_k, l_v {shape} (1 = unchanged)</source>
        <translation>l_k, l_v {shape} (1 = 그대로)</translation>
    </message>
    <message>
        <source>virtual {name} {shape}</source>
        <translation>가상 {name} {shape}</translation>
    </message>
    <message>
        <source>input [E; X] {shape}: virtual rows first</source>
        <translation>입력 [E; X] {shape}: 가상 행이 먼저</translation>
    </message>
    <message>
        <source>head {head}: base</source>
        <translation>헤드 {head}: 기본</translation>
    </message>
    <message>
        <source>head {head}: adapted {shape}</source>
        <translation>헤드 {head}: 어댑터 {shape}</translation>
    </message>
    <message>
        <source>adapted − base</source>
        <translation>어댑터 − 기본</translation>
    </message>
    <message>
        <source>query</source>
        <translation>쿼리</translation>
    </message>
    <message>
        <source>key</source>
        <translation>키</translation>
    </message>
    <message>
        <source>output: base {shape}</source>
        <translation>출력: 기본 {shape}</translation>
    </message>
    <message>
        <source>output: adapted {shape}</source>
        <translation>출력: 어댑터 {shape}</translation>
    </message>
    <message>
        <source>Δoutput = adapted − base</source>
        <translation>Δoutput = 어댑터 − 기본</translation>
    </message>
    <message>
        <source>token</source>
        <translation>토큰</translation>
    </message>
    <message>
        <source>prefix</source>
        <translation>프리픽스</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>프롬프트</translation>
    </message>
    <message>
        <source>full fine-tune</source>
        <translation>전체 미세조정</translation>
    </message>
    <message>
        <source>LoRA on {name}: scale {scale}, trains r·(d_in + d_out) = {count} numbers instead of d_in·d_out = {full} ({percent} %).</source>
        <translation>{name}에 LoRA: 배율 {scale}, d_in·d_out = {full}개 대신 r·(d_in + d_out) = {count}개만 학습합니다({percent} %).</translation>
    </message>
    <message>
        <source>B = 0, so ΔW = 0: the adapted heads are exactly the base (peft starts so, and fine-tuning begins at the pretrained model).</source>
        <translation>B = 0이므로 ΔW = 0: 어댑터를 붙인 헤드는 기본 모델과 정확히 같습니다(peft는 이렇게 시작하므로 미세조정은 사전학습 모델에서 출발합니다).</translation>
    </message>
    <message>
        <source>B drawn by the seed (peft&apos;s init_lora_weights=False): ΔW has rank ≤ r = {r}, singular values {values}.</source>
        <translation>시드로 뽑은 B (peft의 init_lora_weights=False): ΔW의 랭크는 r = {r} 이하, 특이값 {values}.</translation>
    </message>
    <message>
        <source>A and B trained {steps} Adam steps on a toy task (head 0 should look at the previous token; W frozen): loss {before} → {after}.</source>
        <translation>A와 B를 간단한 연습 과제(헤드 0이 바로 앞 토큰을 보도록, W는 고정)로 Adam {steps}스텝 학습: 손실 {before} → {after}.</translation>
    </message>
    <message>
        <source>Largest weight change per head: {changes}.</source>
        <translation>헤드별 가장 큰 가중치 변화: {changes}.</translation>
    </message>
    <message>
        <source>On {name} LoRA changes what the heads pass on, not where they look: the weights stay the same, so the output is shown (max |Δoutput| = {delta}).</source>
        <translation>{name}의 LoRA는 헤드가 어디를 보는지가 아니라 무엇을 전달하는지를 바꿉니다: 가중치는 그대로이므로 출력을 보입니다(최대 |Δoutput| = {delta}).</translation>
    </message>
    <message>
        <source>merged W + ΔW gives the same attention as the unmerged x·W + scale·(x·Aᵀ)·Bᵀ (max difference {diff}, float64)</source>
        <translation>병합한 W + ΔW는 병합하지 않은 x·W + 배율·(x·Aᵀ)·Bᵀ와 같은 어텐션을 줍니다(최대 차이 {diff}, float64)</translation>
    </message>
    <message>
        <source>merged and unmerged differ by {diff}: more than rounding</source>
        <translation>병합한 것과 병합하지 않은 것이 {diff}만큼 다릅니다: 반올림 오차보다 큽니다</translation>
    </message>
    <message>
        <source>IA³ with l_k = l_v = 1 (peft&apos;s start): the heads are exactly the base.</source>
        <translation>l_k = l_v = 1인 IA³ (peft의 시작값): 헤드는 기본 모델과 정확히 같습니다.</translation>
    </message>
    <message>
        <source>IA³: the columns of K are multiplied by l_k and those of V by l_v, drawn as l = 1 + {strength}·N(0, 1) from seed {seed}: 2·d = {count} trainable numbers per layer.</source>
        <translation>IA³: K의 열에는 l_k를, V의 열에는 l_v를 곱합니다. 시드 {seed}에서 l = 1 + {strength}·N(0, 1)로 뽑았으며, 층마다 학습할 수는 2·d = {count}개입니다.</translation>
    </message>
    <message>
        <source>l_k moves where the heads look (largest weight change per head: {changes}); l_v only what they pass on (max |Δoutput| = {delta}).</source>
        <translation>l_k는 헤드가 보는 곳을 바꾸고(헤드별 가장 큰 가중치 변화: {changes}), l_v는 전달하는 값만 바꿉니다(최대 |Δoutput| = {delta}).</translation>
    </message>
    <message>
        <source>Prefix tuning: {v} virtual keys and values {labels} per layer (2·v·d = {count} trainable numbers per layer) before the real keys.</source>
        <translation>프리픽스 튜닝: 층마다 가상 키와 값 {v}개({labels})를 실제 키 앞에 둡니다(층마다 학습할 수 2·v·d = {count}개).</translation>
    </message>
    <message>
        <source>Every query may attend to them, under the causal mask and padding too: the weights are n × (v + n) = {rows} × {cols} and each row still sums to 1; the real keys keep {share} % of the weight on average.</source>
        <translation>모든 쿼리는 causal 마스크나 패딩이 있어도 이들을 볼 수 있습니다: 가중치는 n × (v + n) = {rows} × {cols}이고 각 행의 합은 여전히 1입니다. 실제 키에는 평균 {share} %의 가중치가 남습니다.</translation>
    </message>
    <message>
        <source>Prompt tuning: {v} virtual tokens {labels} before the sentence (v·d = {count} trainable numbers, in the input only).</source>
        <translation>프롬프트 튜닝: 문장 앞에 가상 토큰 {v}개({labels})를 붙입니다(학습할 수 v·d = {count}개, 입력에만).</translation>
    </message>
    <message>
        <source>The weights are (v + n) × (v + n) = {rows} × {cols}; under the causal mask every real token still sees every virtual one. The difference compares the real tokens.</source>
        <translation>가중치는 (v + n) × (v + n) = {rows} × {cols}입니다. causal 마스크에서도 모든 실제 토큰은 모든 가상 토큰을 봅니다. 차이는 실제 토큰끼리 비교합니다.</translation>
    </message>
    <message>
        <source>formula</source>
        <translation>식</translation>
    </message>
    <message>
        <source>trainable</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>% of full</source>
        <translation>전체 대비 %</translation>
    </message>
</context>
<context>
    <name>topics.pruning_view</name>
    <message>
        <source>all on</source>
        <translation>모두 켜기</translation>
    </message>
    <message>
        <source>heads:</source>
        <translation>헤드:</translation>
    </message>
    <message>
        <source>full output (all heads)</source>
        <translation>전체 출력 (모든 헤드)</translation>
    </message>
    <message>
        <source>pruned output ({kept} of {heads} heads)</source>
        <translation>가지치기 후 출력 (헤드 {heads}개 중 {kept}개)</translation>
    </message>
    <message>
        <source>Δoutput = pruned − full</source>
        <translation>Δoutput = 가지치기 후 − 전체</translation>
    </message>
    <message>
        <source>({percent}% of ‖output‖ = {norm})</source>
        <translation>(‖output‖ = {norm}의 {percent}%)</translation>
    </message>
    <message>
        <source>importance ‖head_out_h · W_O[rows of h]‖</source>
        <translation>중요도 ‖head_out_h · W_O[h의 행]‖</translation>
    </message>
    <message>
        <source>mean softmax entropy (nats; low = sharp)</source>
        <translation>평균 softmax 엔트로피 (nats, 낮을수록 뾰족함)</translation>
    </message>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
</context>
<context>
    <name>topics.qkv_view</name>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>{name} head {head} = {slice} {shape}</source>
        <translation>{name} 헤드 {head} = {slice} {shape}</translation>
    </message>
    <message>
        <source>columns {first} … {last}   (d_head = {d_head}, {heads} heads)</source>
        <translation>열 {first} … {last}   (d_head = {d_head}, 헤드 {heads}개)</translation>
    </message>
    <message>
        <source>split: {shapes}</source>
        <translation>나누기: {shapes}</translation>
    </message>
    <message>
        <source>head {head} ← columns {first} … {last}</source>
        <translation>헤드 {head} ← 열 {first} … {last}</translation>
    </message>
</context>
<context>
    <name>topics.scaling_view</name>
    <message>
        <source>mean max weight</source>
        <translation>평균 최대 가중치</translation>
    </message>
    <message>
        <source>mean entropy (nats)</source>
        <translation>평균 엔트로피 (nats)</translation>
    </message>
    <message>
        <source>head</source>
        <translation>헤드</translation>
    </message>
    <message>
        <source>sweep:</source>
        <translation>스윕:</translation>
    </message>
    <message>
        <source>init:</source>
        <translation>초기화:</translation>
    </message>
    <message>
        <source>÷√d_head (scaled)</source>
        <translation>÷√d_head (스케일링)</translation>
    </message>
    <message>
        <source>no scaling</source>
        <translation>스케일링 없음</translation>
    </message>
    <message>
        <source>uniform</source>
        <translation>균등</translation>
    </message>
    <message>
        <source>raw q·k · Var {var}</source>
        <translation>원점수 q·k · Var {var}</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>예측</translation>
    </message>
    <message>
        <source>no sweep: the head count divides no d_model in 8 … 1024</source>
        <translation>스윕 없음: 8 … 1024의 어떤 d_model도 헤드 수로 나누어떨어지지 않습니다</translation>
    </message>
    <message>
        <source> now: {d_model} </source>
        <translation> 현재: {d_model} </translation>
    </message>
    <message>
        <source>d_model sweep · {heads} heads, {seeds} seeds</source>
        <translation>d_model 스윕 · 헤드 {heads}개, 시드 {seeds}개</translation>
    </message>
    <message>
        <source>count</source>
        <translation>개수</translation>
    </message>
    <message>
        <source>q·k / √d_head</source>
        <translation>q·k / √d_head</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
</context>
<context>
    <name>topics.texts</name>
    <message>
        <source>Q, K, V projections</source>
        <translation>Q, K, V 투영</translation>
    </message>
    <message>
        <source>Each token&apos;s vector (a row of X) is multiplied by three learned matrices: Q = X·W_Q (what the token is looking for), K = X·W_K (what it can be found by) and V = X·W_V (what it passes on). All three are (n, d_model). There are no separate matrices per head: head i simply takes columns i·d_head … (i+1)·d_head − 1 of Q, K and V (the outlined band, which comes from the same columns of W_Q, W_K, W_V). Pick a head and compare its slices with the band.</source>
        <translation>각 토큰의 벡터(X의 한 행)에 학습된 세 행렬을 곱합니다: Q = X·W_Q (토큰이 찾는 것), K = X·W_K (다른 토큰이 찾아올 단서), V = X·W_V (전달할 내용). 셋 다 (n, d_model) 모양입니다. 헤드마다 따로 행렬이 있는 것이 아닙니다: 헤드 i는 Q, K, V의 열 i·d_head … (i+1)·d_head − 1 (테두리 띠)만 가져가며, 이 띠는 W_Q, W_K, W_V의 같은 열에서 나옵니다. 헤드를 골라 그 조각과 띠를 비교해 보세요.</translation>
    </message>
    <message>
        <source>Why √d_head</source>
        <translation>왜 √d_head로 나누나</translation>
    </message>
    <message>
        <source>A score q·k adds up d_head products, so its variance grows with d_head: Var(q·k) ≈ d_head·Var(q)·Var(k). Large scores saturate softmax: one key takes almost all the weight (max weight → 1, entropy → 0) and gradients vanish. Dividing by √d_head brings the variance back to Var(q)·Var(k). Compare the two histograms and the variances next to d_head, then the sweep: with unit-variance weights the scaled curve stays flat while the unscaled one saturates. With the course&apos;s weights (×0.5 at every size) q itself grows with d_model, so even scaled scores saturate; real models keep q and k small with 1/√d_model initialisation and LayerNorm.</source>
        <translation>점수 q·k는 d_head개의 곱을 더한 값이라 분산이 d_head에 비례해 커집니다: Var(q·k) ≈ d_head·Var(q)·Var(k). 점수가 크면 softmax가 포화됩니다: 한 키가 가중치를 거의 다 가져가고 (최대 가중치 → 1, 엔트로피 → 0) 기울기가 사라집니다. √d_head로 나누면 분산이 Var(q)·Var(k)로 돌아옵니다. 두 히스토그램과 d_head 옆의 분산을 비교한 뒤 아래 스윕을 보세요: 분산 1로 초기화한 가중치에서는 스케일링한 곡선이 평평하고 스케일링하지 않은 곡선은 포화됩니다. 강의의 가중치(크기와 상관없이 ×0.5)에서는 q 자체가 d_model과 함께 커져서 스케일링해도 포화됩니다. 실제 모델은 1/√d_model 초기화와 LayerNorm으로 q, k를 작게 유지합니다.</translation>
    </message>
    <message>
        <source>Cross-attention (encoder–decoder)</source>
        <translation>교차 어텐션 (인코더–디코더)</translation>
    </message>
    <message>
        <source>In an encoder–decoder Transformer (e.g. translation) the decoder asks the source sentence: queries come from the decoder tokens (rows), keys and values from the encoder tokens (columns), so every weight matrix is rectangular, decoder × encoder. Each row still sums to 1 over the encoder tokens. Encoder &lt;pad&gt; columns are masked for every query; there is no causal mask here, because the whole source sentence is known. The encoder&apos;s X is drawn from seed + 1 (np.random.RandomState(seed + 1).randn(m, d_model)); W_Q, W_K, W_V, W_O are the seed&apos;s course weights.</source>
        <translation>인코더–디코더 트랜스포머(예: 번역)에서 디코더는 원문 문장에 질문합니다: 쿼리는 디코더 토큰(행)에서, 키와 값은 인코더 토큰(열)에서 나오므로 가중치 행렬은 디코더 × 인코더 직사각형입니다. 각 행의 합은 인코더 토큰에 대해 여전히 1입니다. 인코더의 &lt;pad&gt; 열은 모든 쿼리에서 가려집니다. 원문 전체를 이미 알고 있으므로 여기에는 인과 마스크가 없습니다. 인코더의 X는 seed + 1에서 뽑습니다 (np.random.RandomState(seed + 1).randn(m, d_model)). W_Q, W_K, W_V, W_O는 그 시드의 강의 가중치입니다.</translation>
    </message>
    <message>
        <source>Padding and combined masks</source>
        <translation>패딩 마스크와 마스크 결합</translation>
    </message>
    <message>
        <source>Two masks combine into the one softmax sees. Padding closes the columns of &lt;pad&gt; keys for every query; causal closes the upper triangle (query i sees keys 0 … i). The combination is their AND: a cell is open only if both allow it. Masked cells get weight exactly 0 and each row&apos;s open cells still sum to 1. A row with no open key left (here: a leading &lt;pad&gt; with the causal mask) would give softmax 0/0 = NaN; the app defines its weights as all 0, so that token&apos;s attention output is the zero vector (outlined in red).</source>
        <translation>두 마스크가 합쳐져 softmax가 보는 하나의 마스크가 됩니다. 패딩 마스크는 모든 쿼리에서 &lt;pad&gt; 키의 열을 막고, 인과 마스크는 위쪽 삼각형을 막습니다 (쿼리 i는 키 0 … i만 봅니다). 결합은 두 마스크의 AND입니다: 둘 다 허용해야 칸이 열립니다. 가려진 칸의 가중치는 정확히 0이고, 각 행의 열린 칸의 합은 여전히 1입니다. 열린 키가 하나도 없는 행(여기서는 인과 마스크와 맨 앞의 &lt;pad&gt;)은 softmax가 0/0 = NaN이 됩니다. 이 앱은 그 행의 가중치를 모두 0으로 정의하므로 그 토큰의 어텐션 출력은 영벡터입니다 (빨간 테두리).</translation>
    </message>
    <message>
        <source>Head pruning</source>
        <translation>헤드 가지치기</translation>
    </message>
    <message>
        <source>The output is a sum over heads: output = Σ_h head_out_h · W_O[rows of head h]. A head&apos;s importance here is the size of its contribution, ‖head_out_h · W_O[rows of h]‖: exactly how far the output moves if that head alone is removed. Its mean entropy (low = sharp pattern) is shown too. Switch heads off and watch ‖Δoutput‖ = ‖pruned − full‖: heads with a small contribution can often go with little change. With every head off the attention output is all zeros (inside a block the residual connection still passes X through).</source>
        <translation>출력은 헤드별 기여의 합입니다: output = Σ_h head_out_h · W_O[헤드 h의 행]. 여기서 헤드의 중요도는 기여의 크기 ‖head_out_h · W_O[h의 행]‖로, 그 헤드 하나만 뺐을 때 출력이 움직이는 양과 정확히 같습니다. 평균 엔트로피(낮을수록 뾰족한 패턴)도 함께 보여 줍니다. 헤드를 끄고 ‖Δoutput‖ = ‖가지치기 후 − 전체‖를 보세요: 기여가 작은 헤드는 출력을 거의 바꾸지 않고 뺄 수 있는 경우가 많습니다. 모든 헤드를 끄면 어텐션 출력은 모두 0입니다 (블록 안에서는 잔차 연결이 X를 그대로 전달합니다).</translation>
    </message>
    <message>
        <source>Encoder block (Add &amp; Norm, FFN)</source>
        <translation>인코더 블록 (Add &amp; Norm, FFN)</translation>
    </message>
    <message>
        <source>An encoder block wraps attention in two sub-layers, each with a residual connection (Add) and LayerNorm (Norm). Post-LN (the 2017 paper): h = LN(x + MHA(x)), out = LN(h + FFN(h)). Pre-LN (GPT-2 and later): h = x + MHA(LN(x)), out = h + FFN(LN(h)). The position-wise FFN applies the same two-layer network to every token: FFN(z) = act(z·W_1 + b_1)·W_2 + b_2 with d_ff = 4·d_model. The bars show each stage&apos;s size: Post-LN brings every token back to norm √d_model, Pre-LN lets the residual stream grow. The FFN weights are drawn from seed + 2 with a 1/√fan_in scale.</source>
        <translation>인코더 블록은 어텐션을 두 서브층으로 감싸고, 각 서브층에는 잔차 연결(Add)과 LayerNorm(Norm)이 있습니다. Post-LN(2017년 논문): h = LN(x + MHA(x)), out = LN(h + FFN(h)). Pre-LN(GPT-2 이후): h = x + MHA(LN(x)), out = h + FFN(LN(h)). 위치별 FFN은 모든 토큰에 같은 2층 신경망을 적용합니다: FFN(z) = act(z·W_1 + b_1)·W_2 + b_2, d_ff = 4·d_model. 막대는 각 단계의 크기입니다: Post-LN은 모든 토큰을 노름 √d_model로 되돌리고, Pre-LN은 잔차 흐름이 커지게 둡니다. FFN 가중치는 seed + 2에서 1/√fan_in 스케일로 뽑습니다.</translation>
    </message>
    <message>
        <source>PEFT: LoRA, IA³, prefix and prompt tuning</source>
        <translation>PEFT: LoRA·IA³·프리픽스·프롬프트 튜닝</translation>
    </message>
    <message>
        <source>Parameter-efficient fine-tuning freezes the model&apos;s weights and trains a few new numbers. LoRA adds ΔW = (α/r)·B·A to one matrix (rsLoRA: α/√r); B starts at 0, so training starts exactly at the base model (the course multiplies row vectors, x·W, so ΔW shows here transposed: Aᵀ·Bᵀ). IA³ scales the columns of K and V by learned vectors l_k, l_v. Prefix tuning adds v virtual keys and values every query can attend to; prompt tuning puts v virtual tokens before the sentence. The table counts what each method trains (heads split d_model: their number changes no count).</source>
        <translation>파라미터 효율적 미세조정(PEFT)은 모델의 가중치를 고정한 채 새로 추가한 적은 수의 숫자만 학습합니다. LoRA는 행렬 하나에 ΔW = (α/r)·B·A를 더합니다(rsLoRA: α/√r). B가 0에서 시작하므로 학습은 정확히 기본 모델에서 출발합니다. 이 강의는 행 벡터에 곱하므로(x·W), 여기서는 ΔW가 전치된 Aᵀ·Bᵀ로 보입니다. IA³는 학습된 벡터 l_k, l_v로 K와 V의 열의 크기를 조절합니다. 프리픽스 튜닝은 모든 쿼리가 볼 수 있는 가상 키와 값 v개를 더하고, 프롬프트 튜닝은 문장 앞에 가상 토큰 v개를 붙입니다. 표는 방법마다 학습하는 파라미터 수를 셉니다(헤드는 d_model을 나눌 뿐이라 헤드 수는 어떤 수도 바꾸지 않습니다).</translation>
    </message>
    <message>
        <source>All heads are pruned: the attention output is all zeros; in a block the residual connection still passes X through.</source>
        <translation>모든 헤드를 껐습니다: 어텐션 출력은 모두 0입니다. 블록 안에서는 잔차 연결이 X를 그대로 전달합니다.</translation>
    </message>
    <message>
        <source>Row {row} ({token}) has no open key: its weights are all 0 (not NaN) and its output is the zero vector.</source>
        <translation>{row}번 행({token})에는 열린 키가 없습니다: 가중치는 모두 0(NaN 아님)이고 출력은 영벡터입니다.</translation>
    </message>
    <message>
        <source>Every row has at least one open key.</source>
        <translation>모든 행에 열린 키가 하나 이상 있습니다.</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>계산 중…</translation>
    </message>
    <message>
        <source>course weights (randn × 0.5)</source>
        <translation>강의 가중치 (randn × 0.5)</translation>
    </message>
    <message>
        <source>unit-variance weights (randn / √d_model)</source>
        <translation>분산 1 가중치 (randn / √d_model)</translation>
    </message>
</context>
<context>
    <name>training.controls</name>
    <message>
        <source>Task</source>
        <translation>과제</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>층 수</translation>
    </message>
    <message>
        <source>Heads per layer</source>
        <translation>층마다 헤드 수</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>난수 시드</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>학습률</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>스텝 수</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>시작</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>일시정지</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>스텝 진행</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>초기화</translation>
    </message>
    <message>
        <source>Train one log interval (10 steps) and pause</source>
        <translation>기록 간격 하나(10 스텝)만 학습하고 멈춥니다</translation>
    </message>
    <message>
        <source>Forget the run; the settings can be changed again</source>
        <translation>이번 학습을 지웁니다. 설정을 다시 바꿀 수 있습니다</translation>
    </message>
    <message>
        <source>Save model…</source>
        <translation>모델 저장…</translation>
    </message>
    <message>
        <source>Load model…</source>
        <translation>모델 불러오기…</translation>
    </message>
    <message>
        <source>Export snapshot…</source>
        <translation>스냅샷 내보내기…</translation>
    </message>
    <message>
        <source>Export animation…</source>
        <translation>애니메이션 내보내기…</translation>
    </message>
    <message>
        <source>Device: {device} (the backend switch; used from the next fresh run)</source>
        <translation>장치: {device} (백엔드 선택을 따름, 다음 새 학습부터 적용)</translation>
    </message>
</context>
<context>
    <name>training.curves</name>
    <message>
        <source>Loss</source>
        <translation>손실</translation>
    </message>
    <message>
        <source>Accuracy (held-out)</source>
        <translation>정확도 (검증 배치)</translation>
    </message>
    <message>
        <source>Previous-token score</source>
        <translation>이전 토큰 점수</translation>
    </message>
    <message>
        <source>Induction score</source>
        <translation>유도 헤드 점수</translation>
    </message>
    <message>
        <source>layer 1 (dashed)</source>
        <translation>1층 (점선)</translation>
    </message>
    <message>
        <source>train loss</source>
        <translation>학습 손실</translation>
    </message>
    <message>
        <source>held-out loss</source>
        <translation>검증 손실</translation>
    </message>
</context>
<context>
    <name>training.heads</name>
    <message>
        <source>Step {step} (the curves&apos; x axis is the training step): every head on the fixed probe; title: layer, head, previous-token score | induction score; held-out loss {loss}</source>
        <translation>스텝 {step} (곡선의 가로축은 학습 스텝): 고정 탐침 시퀀스 위의 모든 헤드, 제목: 층, 헤드, 이전 토큰 점수 | 유도 헤드 점수, 검증 손실 {loss}</translation>
    </message>
    <message>
        <source>No snapshot yet: press Start or Step.</source>
        <translation>아직 스냅샷이 없습니다: 시작이나 스텝 진행을 누르세요.</translation>
    </message>
</context>
<context>
    <name>training.lora_controls</name>
    <message>
        <source>W_Q: the queries (rows 0 … d−1 of the fused qkv weight)</source>
        <translation>W_Q: 쿼리 (합쳐진 qkv 가중치의 0 … d−1행)</translation>
    </message>
    <message>
        <source>W_K: the keys (rows d … 2d−1 of qkv)</source>
        <translation>W_K: 키 (qkv의 d … 2d−1행)</translation>
    </message>
    <message>
        <source>W_V: the values (rows 2d … 3d−1 of qkv)</source>
        <translation>W_V: 값 (qkv의 2d … 3d−1행)</translation>
    </message>
    <message>
        <source>W_O: the output projection (out)</source>
        <translation>W_O: 출력 투영 (out)</translation>
    </message>
    <message>
        <source>Use trained model</source>
        <translation>학습한 모델 사용</translation>
    </message>
    <message>
        <source>Load base…</source>
        <translation>기반 모델 열기…</translation>
    </message>
    <message>
        <source>The model trained in this tab, as it is when the fine-tune starts</source>
        <translation>이 탭에서 학습한 모델 (미세조정을 시작하는 순간의 상태)</translation>
    </message>
    <message>
        <source>= r</source>
        <translation>= r</translation>
    </message>
    <message>
        <source>The update is (α / r)·B·A; “= r” keeps the scale at 1</source>
        <translation>갱신량은 (α / r)·B·A입니다. “= r”이면 배율이 1로 유지됩니다</translation>
    </message>
    <message>
        <source>Compare with a full fine-tune</source>
        <translation>전체 미세조정과 비교</translation>
    </message>
    <message>
        <source>Also fine-tune every weight of a copy of the base on the same batches (at the base&apos;s own learning rate)</source>
        <translation>기반 모델의 복사본도 같은 배치로 모든 가중치를 미세조정합니다 (기반 모델 자신의 학습률로)</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>시작</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>일시정지</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Forget the fine-tune (the base stays); the settings can be changed again</source>
        <translation>미세조정을 버립니다 (기반 모델은 그대로). 설정을 다시 바꿀 수 있습니다</translation>
    </message>
    <message>
        <source>Save adapter…</source>
        <translation>어댑터 저장…</translation>
    </message>
    <message>
        <source>New task</source>
        <translation>새 과제</translation>
    </message>
    <message>
        <source>Rank r</source>
        <translation>랭크 r</translation>
    </message>
    <message>
        <source>α</source>
        <translation>α</translation>
    </message>
    <message>
        <source>Targets</source>
        <translation>대상</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>스텝</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>학습률</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>시드</translation>
    </message>
    <message>
        <source>Trainable parameters: choose a base and at least one target</source>
        <translation>학습 파라미터: 기반 모델과 대상을 하나 이상 고르세요</translation>
    </message>
    <message>
        <source>Trainable: {lora} LoRA parameters, {share} of {total}; a full fine-tune trains {full}</source>
        <translation>학습 파라미터: LoRA {lora}개, 전체 {total}개의 {share}. 전체 미세조정은 {full}개를 학습</translation>
    </message>
</context>
<context>
    <name>training.lora_curves</name>
    <message>
        <source>Loss on the new task</source>
        <translation>새 과제의 손실</translation>
    </message>
    <message>
        <source>Accuracy (held-out)</source>
        <translation>정확도 (검증용)</translation>
    </message>
    <message>
        <source>LoRA held-out</source>
        <translation>LoRA 검증 손실</translation>
    </message>
    <message>
        <source>LoRA train</source>
        <translation>LoRA 학습 손실</translation>
    </message>
    <message>
        <source>full fine-tune held-out</source>
        <translation>전체 미세조정 검증 손실</translation>
    </message>
    <message>
        <source>base (step 0)</source>
        <translation>기반 모델 (0스텝)</translation>
    </message>
</context>
<context>
    <name>training.lora_heads</name>
    <message>
        <source>before</source>
        <translation>이전</translation>
    </message>
    <message>
        <source>after</source>
        <translation>이후</translation>
    </message>
    <message>
        <source>Before / after / difference of every head appear when the fine-tune starts.</source>
        <translation>미세조정을 시작하면 모든 헤드의 이전 / 이후 / 차이가 나타납니다.</translation>
    </message>
    <message>
        <source>Every head on the probe: before (the base), after (LoRA, step {step}) and Δ = after − before (red: more attention, blue: less; one scale for all heads, ±{top})</source>
        <translation>프로브에서 본 모든 헤드: 이전(기반 모델), 이후(LoRA, {step}스텝), Δ = 이후 − 이전(빨강: 주의가 늘어남, 파랑: 줄어듦; 모든 헤드가 같은 눈금 ±{top})</translation>
    </message>
    <message>
        <source>(heads 0–{last} of {count})</source>
        <translation>(헤드 {count}개 중 0–{last})</translation>
    </message>
    <message>
        <source>L{layer} head {head}: position {query} → {key}: before {before}, after {after}, difference {diff}</source>
        <translation>L{layer} 헤드 {head}: 위치 {query} → {key}: 이전 {before}, 이후 {after}, 차이 {diff}</translation>
    </message>
</context>
<context>
    <name>training.lora_view</name>
    <message>
        <source>LoRA: a low-rank change</source>
        <translation>LoRA: 낮은 rank의 변화</translation>
    </message>
    <message>
        <source>The base model is frozen. Each chosen weight W (W_Q, W_K, W_V or W_O) gets two small matrices, A (r × d) and B (d × r), and the layer uses W + (α / r)·B·A. Only A and B train: 2·r·d numbers per matrix instead of d². B starts at 0, so at step 0 the model is exactly the base: the curves start at the base&apos;s loss on the new task and the difference heads start white.</source>
        <translation>기반 모델은 고정됩니다. 고른 가중치 W(W_Q, W_K, W_V 또는 W_O)마다 작은 행렬 A (r × d)와 B (d × r)가 붙고, 층은 W + (α / r)·B·A를 씁니다. A와 B만 학습됩니다: 행렬마다 d²개 대신 2·r·d개의 수. B는 0에서 시작하므로 0스텝의 모델은 기반 모델과 정확히 같습니다: 곡선은 새 과제에 대한 기반 모델의 손실에서 시작하고, 차이 헤드는 하얗게 시작합니다.</translation>
    </message>
    <message>
        <source>r and α</source>
        <translation>r과 α</translation>
    </message>
    <message>
        <source>The rank r bounds how much the weight can change: ΔW has rank at most r. α / r scales the update; α = r (the default) makes it 1. Keep α fixed while trying other ranks and the update keeps its size.</source>
        <translation>랭크 r은 가중치가 바뀔 수 있는 폭을 제한합니다: ΔW의 랭크는 최대 r입니다. α / r은 갱신량의 배율이며, α = r(기본값)이면 1입니다. 다른 랭크를 시험할 때 α를 고정해 두면 갱신량의 크기가 유지됩니다.</translation>
    </message>
    <message>
        <source>Against a full fine-tune</source>
        <translation>전체 미세조정과 비교</translation>
    </message>
    <message>
        <source>With the comparison on, a copy of the base trains every weight on the same batches (dashed curve). It usually gets further, with many times more trainable parameters; the saved adapter is only A and B.</source>
        <translation>비교를 켜면 기반 모델의 복사본이 같은 배치로 모든 가중치를 학습합니다(점선 곡선). 보통 더 멀리 가지만 학습 파라미터가 몇 배나 많습니다. 저장되는 어댑터는 A와 B뿐입니다.</translation>
    </message>
    <message>
        <source>No trained model yet: train one (Train from scratch), or load a base.</source>
        <translation>아직 학습한 모델이 없습니다: 먼저 학습하거나(처음부터 학습) 기반 모델을 불러오세요.</translation>
    </message>
    <message>
        <source>reading {path}…</source>
        <translation>{path} 읽는 중…</translation>
    </message>
    <message>
        <source>base loaded from {path}</source>
        <translation>{path}에서 기반 모델을 불러왔습니다</translation>
    </message>
    <message>
        <source>Base: none yet (train a model, or load one)</source>
        <translation>기반 모델: 아직 없음 (모델을 학습하거나 불러오세요)</translation>
    </message>
    <message>
        <source>{layers} layers × {heads} heads, d_model {d}, trained on {task}</source>
        <translation>{layers}층 × 헤드 {heads}개, d_model {d}, {task} 과제로 학습</translation>
    </message>
    <message>
        <source>Base: the model trained here ({sizes}; step {step})</source>
        <translation>기반 모델: 여기서 학습한 모델 ({sizes}; {step}스텝)</translation>
    </message>
    <message>
        <source>Base: {name} ({sizes})</source>
        <translation>기반 모델: {name} ({sizes})</translation>
    </message>
    <message>
        <source>fine-tuning a LoRA…</source>
        <translation>LoRA 미세조정 중…</translation>
    </message>
    <message>
        <source>adapter not saved: {reason}</source>
        <translation>어댑터를 저장하지 못했습니다: {reason}</translation>
    </message>
    <message>
        <source>adapter saved to {path}</source>
        <translation>어댑터를 {path}에 저장했습니다</translation>
    </message>
    <message>
        <source>idle: choose the base and the settings, then Start</source>
        <translation>대기: 기반 모델과 설정을 고른 뒤 시작을 누르세요</translation>
    </message>
    <message>
        <source>fine-tuning: step {step} of {steps}</source>
        <translation>미세조정 중: {steps}스텝 중 {step}</translation>
    </message>
    <message>
        <source>paused at step {step} of {steps}</source>
        <translation>일시정지: {steps}스텝 중 {step}</translation>
    </message>
    <message>
        <source>done: {step} steps</source>
        <translation>완료: {step}스텝</translation>
    </message>
    <message>
        <source>LoRA: {reason}</source>
        <translation>LoRA: {reason}</translation>
    </message>
    <message>
        <source>Load a base model</source>
        <translation>기반 모델 불러오기</translation>
    </message>
    <message>
        <source>safetensors (*.safetensors)</source>
        <translation>safetensors (*.safetensors)</translation>
    </message>
    <message>
        <source>Save the adapter into a folder</source>
        <translation>어댑터를 폴더에 저장</translation>
    </message>
    <message>
        <source>Replace the adapter?</source>
        <translation>어댑터를 바꿀까요?</translation>
    </message>
    <message>
        <source>{folder} holds an adapter already. Replace it?</source>
        <translation>{folder}에 이미 어댑터가 있습니다. 바꿀까요?</translation>
    </message>
</context>
<context>
    <name>training.picture</name>
    <message>
        <source>L{layer} head {head}: no snapshot yet</source>
        <translation>L{layer} 헤드 {head}: 아직 스냅샷 없음</translation>
    </message>
    <message>
        <source>step {step}, L{layer} head {head}: position {query} → {key}</source>
        <translation>스텝 {step}, L{layer} 헤드 {head}: 위치 {query} → {key}</translation>
    </message>
    <message>
        <source>{where}: masked (causal)</source>
        <translation>{where}: 가려짐 (인과 마스크)</translation>
    </message>
    <message>
        <source>{where}, weight {weight}  ·  previous-token score {prev}, induction score {ind}</source>
        <translation>{where}, 가중치 {weight}  ·  이전 토큰 점수 {prev}, 유도 헤드 점수 {ind}</translation>
    </message>
</context>
<context>
    <name>training.texts</name>
    <message>
        <source>Loss and accuracy</source>
        <translation>손실과 정확도</translation>
    </message>
    <message>
        <source>The model is a 2-layer transformer made of attention heads only (no MLP, no LayerNorm), trained to copy: each sequence holds a random segment of 5–15 tokens and, later at a random place, the same segment again. The loss counts only the repeated part. Train loss is the batch just trained on; held-out loss and accuracy come from a fixed batch the model never trains on. Within a few dozen steps the loss falls to about ln(vocab) (ln 64 ≈ 4.16: no better than guessing), stays on that plateau, then falls steeply within a few dozen steps while the accuracy jumps: the model has found a way to copy.</source>
        <translation>모델은 어텐션 헤드만으로 된 2층 트랜스포머(MLP, LayerNorm 없음)이고, 복사를 배웁니다: 각 시퀀스에는 5–15개 토큰의 무작위 구간이 있고, 뒤의 무작위 위치에 같은 구간이 한 번 더 나옵니다. 손실은 반복된 부분만 셉니다. 학습 손실은 방금 학습한 배치의 손실이고, 검증 손실과 정확도는 학습에 쓰지 않는 고정 배치에서 잽니다. 손실은 수십 스텝 안에 ln(vocab) 근처(ln 64 ≈ 4.16: 찍기와 다를 바 없음)로 내려와 한동안 평평하게 머물다가, 수십 스텝 만에 가파르게 떨어지며 정확도가 뛰어오릅니다: 모델이 복사하는 방법을 찾은 것입니다.</translation>
    </message>
    <message>
        <source>Heads on the probe</source>
        <translation>탐침 시퀀스 위의 헤드</translation>
    </message>
    <message>
        <source>Every head&apos;s attention is drawn on one fixed probe: L = 3/8 · seq_len distinct random tokens (12 for 32), then the same L tokens again. The probe never changes, so frames from different steps can be compared. A previous-token head shows a line just below the diagonal (each token looks one back). An induction head shows, in the second half, a line L − 1 below the diagonal: token i looks at the token right after the earlier copy of itself — the token it must predict.</source>
        <translation>모든 헤드의 어텐션을 하나의 고정 탐침 시퀀스 위에 그립니다: 서로 다른 무작위 토큰 L = 3/8 · seq_len개(32이면 12개), 그리고 같은 L개 토큰을 한 번 더. 탐침은 바뀌지 않으므로 서로 다른 스텝의 그림을 비교할 수 있습니다. 이전 토큰 헤드는 대각선 바로 아래에 선이 보입니다 (각 토큰이 한 칸 앞을 봅니다). 유도(induction) 헤드는 뒤쪽 절반에서 대각선보다 L − 1 아래에 선이 보입니다: 토큰 i가 자기 자신의 앞선 복사본 바로 다음 토큰, 즉 예측해야 할 토큰을 봅니다.</translation>
    </message>
    <message>
        <source>Role scores and switch steps</source>
        <translation>역할 점수와 켜진 스텝</translation>
    </message>
    <message>
        <source>Previous-token score = mean over i ≥ 1 of A[i, i − 1]; induction score = mean over the second-half positions i of A[i, i − L + 1]. A perfect head scores 1; a fresh model&apos;s nearly uniform attention scores about 0.1 and 0.05. A head&apos;s switch step (the mark on its curve) is the first logged step from which its score stays ≥ {threshold} at every later logged step, so a blip that falls back does not count.</source>
        <translation>이전 토큰 점수 = i ≥ 1에 대한 A[i, i − 1]의 평균, 유도 점수 = 뒤쪽 절반 위치 i에 대한 A[i, i − L + 1]의 평균입니다. 완벽한 헤드는 1점이고, 갓 초기화된 모델의 거의 균일한 어텐션은 약 0.1과 0.05점입니다. 헤드가 켜진 스텝(곡선 위의 표시)은 점수가 그 뒤로 기록된 모든 스텝에서 {threshold} 이상을 유지하기 시작한 첫 기록 스텝입니다. 잠깐 올랐다 떨어진 것은 세지 않습니다.</translation>
    </message>
    <message>
        <source>The phase change</source>
        <translation>상전이 (phase change)</translation>
    </message>
    <message>
        <source>Copying needs two heads working together: in layer 0 a previous-token head writes into each position &quot;the token before me was t&quot;; in layer 1 an induction head matches the current token against that information and attends to the position after the earlier t. Neither head helps the loss alone, so for a while nothing happens; then both form together within a few dozen steps and the loss drops at the same moment. That abrupt, joint change is the phase change (Olsson et al. 2022, &quot;In-context learning and induction heads&quot;).</source>
        <translation>복사에는 두 헤드의 협력이 필요합니다: 0층의 이전 토큰 헤드가 각 위치에 &quot;내 앞 토큰은 t였다&quot;를 적고, 1층의 유도 헤드가 현재 토큰을 그 정보와 맞춰 앞선 t의 다음 위치를 봅니다. 어느 헤드도 혼자서는 손실을 줄이지 못하므로 한동안 아무 일도 없다가, 수십 스텝 안에 둘이 함께 생기고 바로 그때 손실이 떨어집니다. 이 갑작스럽고 동시적인 변화가 상전이입니다 (Olsson et al. 2022, &quot;In-context learning and induction heads&quot;).</translation>
    </message>
    <message>
        <source>Pitfall: a fixed offset</source>
        <translation>함정: 고정된 간격</translation>
    </message>
    <message>
        <source>If the copy always starts at the same place (here: the segment at 0, its copy at seq_len / 2), the model needs no induction head: &quot;look seq_len / 2 − 1 positions back&quot; is a purely positional rule one head learns from the position embeddings. The loss falls just as well, but no previous-token or induction head forms, and the model fails on copies anywhere else. A random offset leaves matching tokens as the only way to solve it.</source>
        <translation>복사본이 항상 같은 위치에서 시작하면(여기서는 구간이 0에, 복사본이 seq_len / 2에) 모델에 유도 헤드가 필요 없습니다: &quot;seq_len / 2 − 1칸 앞을 보라&quot;는 위치 임베딩만으로 한 헤드가 배우는 순수한 위치 규칙입니다. 손실은 똑같이 떨어지지만 이전 토큰 헤드도 유도 헤드도 생기지 않고, 다른 위치의 복사본에서는 실패합니다. 간격이 무작위여야 토큰을 맞춰 보는 것만이 유일한 해법이 됩니다.</translation>
    </message>
    <message>
        <source>Copy a repeated segment (random offset: induction)</source>
        <translation>반복된 구간 복사 (무작위 위치: 유도 헤드)</translation>
    </message>
    <message>
        <source>Copy a repeated segment at a fixed offset (pitfall: a positional head)</source>
        <translation>고정 위치의 반복 구간 복사 (함정: 위치 헤드)</translation>
    </message>
    <message>
        <source>Output the previous token</source>
        <translation>이전 토큰 출력</translation>
    </message>
    <message>
        <source>Reverse a list of 10 tokens</source>
        <translation>토큰 10개 목록 뒤집기</translation>
    </message>
    <message>
        <source>Sort a list of 10 tokens</source>
        <translation>토큰 10개 목록 정렬</translation>
    </message>
</context>
<context>
    <name>training.view</name>
    <message>
        <source>no snapshot yet</source>
        <translation>스냅샷 없음</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>타임라인</translation>
    </message>
    <message>
        <source>training on {device}…</source>
        <translation>{device}에서 학습 중…</translation>
    </message>
    <message>
        <source>not saved: {reason}</source>
        <translation>저장하지 못함: {reason}</translation>
    </message>
    <message>
        <source>model saved to {path}</source>
        <translation>모델을 {path}에 저장함</translation>
    </message>
    <message>
        <source>step {step} ({index}/{count})</source>
        <translation>스텝 {step} ({index}/{count})</translation>
    </message>
    <message>
        <source>idle: choose the settings and press Start</source>
        <translation>대기: 설정을 고르고 시작을 누르세요</translation>
    </message>
    <message>
        <source>training: step {step} of {steps}</source>
        <translation>학습 중: {steps} 스텝 중 {step}</translation>
    </message>
    <message>
        <source>paused at step {step} of {steps}</source>
        <translation>{steps} 스텝 중 {step}에서 멈춤</translation>
    </message>
    <message>
        <source>done: {step} steps</source>
        <translation>완료: {step} 스텝</translation>
    </message>
    <message>
        <source>training stopped: {reason}</source>
        <translation>학습 중단: {reason}</translation>
    </message>
    <message>
        <source>model loaded from {path}</source>
        <translation>{path}에서 모델을 불러옴</translation>
    </message>
    <message>
        <source>saved training settings ignored: {reason}</source>
        <translation>저장된 학습 설정을 무시했습니다: {reason}</translation>
    </message>
    <message>
        <source>Train a fresh model, or fine-tune a LoRA on the trained one</source>
        <translation>새 모델을 학습하거나, 학습한 모델에 LoRA를 미세조정합니다</translation>
    </message>
    <message>
        <source>Train from scratch</source>
        <translation>처음부터 학습</translation>
    </message>
    <message>
        <source>LoRA fine-tune</source>
        <translation>LoRA 미세조정</translation>
    </message>
    <message>
        <source>{names} outside the controls&apos; ranges</source>
        <translation>{names} 값이 컨트롤의 범위를 벗어남</translation>
    </message>
    <message>
        <source>Save the trained model</source>
        <translation>학습한 모델 저장</translation>
    </message>
    <message>
        <source>safetensors (*.safetensors)</source>
        <translation>safetensors (*.safetensors)</translation>
    </message>
    <message>
        <source>Load a trained model</source>
        <translation>학습한 모델 불러오기</translation>
    </message>
</context>
<context>
    <name>window.app</name>
    <message>
        <source>saved backend {backend}/{device} is not available here; using numpy for this run (kept for next time)</source>
        <translation>저장된 백엔드 {backend}/{device}를 이 컴퓨터에서 쓸 수 없어 이번에는 numpy를 씁니다 (설정은 다음을 위해 유지)</translation>
    </message>
</context>
<context>
    <name>window.export_dialog</name>
    <message>
        <source>Export…</source>
        <translation>내보내기…</translation>
    </message>
    <message>
        <source>Save the window or one of its figures as PNG, SVG or CSV</source>
        <translation>창이나 그림 하나를 PNG, SVG, CSV로 저장합니다</translation>
    </message>
    <message>
        <source>Copy figure</source>
        <translation>그림 복사</translation>
    </message>
    <message>
        <source>Copy the current figure to the clipboard (2×, white background)</source>
        <translation>현재 그림을 클립보드에 복사합니다 (2×, 흰 배경)</translation>
    </message>
    <message>
        <source>Copy figure: {error}</source>
        <translation>그림 복사: {error}</translation>
    </message>
    <message>
        <source>Copied {figure} ({w}×{h} px) to the clipboard</source>
        <translation>{figure}({w}×{h} px)을(를) 클립보드에 복사했습니다</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>그림 내보내기</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>배율</translation>
    </message>
    <message>
        <source>Width</source>
        <translation>너비</translation>
    </message>
    <message>
        <source>{background} (slides)</source>
        <translation>{background} (슬라이드용)</translation>
    </message>
    <message>
        <source>Title line with the settings (d_model, heads, seed, scaling, masks)</source>
        <translation>설정 제목 줄 (d_model, 헤드, 시드, 스케일링, 마스크)</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>찾아보기…</translation>
    </message>
    <message>
        <source>Overwrite an existing file (otherwise add _2, _3, …)</source>
        <translation>기존 파일 덮어쓰기 (아니면 _2, _3, … 붙임)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>내보내기</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>그림</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>형식</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>크기</translation>
    </message>
    <message>
        <source>Background</source>
        <translation>배경</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>폴더</translation>
    </message>
    <message>
        <source>File name</source>
        <translation>파일 이름</translation>
    </message>
    <message>
        <source>The whole window is exported as it looks (PNG or SVG).</source>
        <translation>창 전체를 보이는 그대로 내보냅니다 (PNG 또는 SVG).</translation>
    </message>
    <message>
        <source>choose a folder to export to (Browse…)</source>
        <translation>내보낼 폴더를 고르세요 (찾아보기…)</translation>
    </message>
    <message>
        <source>export cancelled</source>
        <translation>내보내기 취소됨</translation>
    </message>
    <message>
        <source>Wrote {path}</source>
        <translation>저장함: {path}</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>내보냄: {path}</translation>
    </message>
    <message>
        <source>Large CSV</source>
        <translation>큰 CSV</translation>
    </message>
    <message>
        <source>This CSV will have {rows} rows (about {mb} MB). Writing it takes a while, and the window will not respond meanwhile. Export it anyway?</source>
        <translation>이 CSV는 {rows}행 (약 {mb} MB)입니다. 쓰는 데 시간이 걸리고 그동안 창이 응답하지 않습니다. 그래도 내보낼까요?</translation>
    </message>
    <message>
        <source>white</source>
        <translation>흰색</translation>
    </message>
    <message>
        <source>dark</source>
        <translation>어두운 색</translation>
    </message>
</context>
<context>
    <name>window.from_window</name>
    <message>
        <source>Whole window</source>
        <translation>창 전체</translation>
    </message>
    <message>
        <source>Heads grid</source>
        <translation>헤드 격자</translation>
    </message>
    <message>
        <source>Head {head}</source>
        <translation>헤드 {head}</translation>
    </message>
    <message>
        <source>KV cache at step {step} (layer {layer})</source>
        <translation>단계 {step}의 KV 캐시 (레이어 {layer})</translation>
    </message>
    <message>
        <source>Positional-encoding panel</source>
        <translation>위치 인코딩 패널</translation>
    </message>
    <message>
        <source>KV cache at step {step}</source>
        <translation>단계 {step}의 KV 캐시</translation>
    </message>
</context>
<context>
    <name>window.learned_export</name>
    <message>
        <source>rotary position embeddings (RoPE) inside attention</source>
        <translation>어텐션 안의 회전 위치 임베딩(RoPE)</translation>
    </message>
    <message>
        <source>learned position embeddings</source>
        <translation>학습된 위치 임베딩</translation>
    </message>
    <message>
        <source>No positional-encoding figure: that panel shows the course model&apos;s sinusoidal table, and {model} uses {how}.</source>
        <translation>위치 인코딩 그림 없음: 그 패널은 강의 모델의 사인파 표를 보여 주는데, {model}은(는) {how}을(를) 씁니다.</translation>
    </message>
    <message>
        <source>the trained model</source>
        <translation>학습된 모델</translation>
    </message>
    <message>
        <source>No KV-cache figure: an encoder has no KV cache.</source>
        <translation>KV 캐시 그림 없음: 인코더에는 KV 캐시가 없습니다.</translation>
    </message>
    <message>
        <source>The KV-cache figure is offered once the KV tab has stepped the decoder.</source>
        <translation>KV 캐시 탭이 디코더를 한 단계씩 돌리고 나면 KV 캐시 그림을 내보낼 수 있습니다.</translation>
    </message>
    <message>
        <source>KV cache, step {step} ({token}) — {name}, layer {layer}: the real cache (one K and V per head, {heads} heads)</source>
        <translation>KV 캐시, 단계 {step} ({token}) — {name}, 레이어 {layer}: 실제 캐시 (헤드마다 K와 V 하나, 헤드 {heads}개)</translation>
    </message>
    <message>
        <source>KV cache, step {step} ({token}) — {name}, layer {layer}: the real cache ({kv} K/V heads for {heads} query heads)</source>
        <translation>KV 캐시, 단계 {step} ({token}) — {name}, 레이어 {layer}: 실제 캐시 (쿼리 헤드 {heads}개에 K/V 헤드 {kv}개)</translation>
    </message>
    <message>
        <source>head {head} — </source>
        <translation>헤드 {head} — </translation>
    </message>
    <message>
        <source>{name} ({kind}) · layer {layer} of 0–{last} · {heads} heads · d_model {d_model} · {n} tokens</source>
        <translation>{name} ({kind}) · 레이어 {layer} (0–{last}) · 헤드 {heads}개 · d_model {d_model} · 토큰 {n}개</translation>
    </message>
</context>
<context>
    <name>window.learned_wiring</name>
    <message>
        <source>Model source</source>
        <translation>모델 소스</translation>
    </message>
    <message>
        <source>Model overview</source>
        <translation>모델 개요</translation>
    </message>
    <message>
        <source>Generate (decoder)</source>
        <translation>생성 (디코더)</translation>
    </message>
    <message>
        <source>{model} is stepped through the sentence with its KV cache when this tab is shown…</source>
        <translation>이 탭이 보이면 {model}이(가) KV 캐시로 문장을 한 토큰씩 처리합니다…</translation>
    </message>
</context>
<context>
    <name>window.lesson_wiring</name>
    <message>
        <source>Lesson</source>
        <translation>수업</translation>
    </message>
    <message>
        <source>Reading {name}…</source>
        <translation>{name} 읽는 중…</translation>
    </message>
    <message>
        <source>Open lesson file</source>
        <translation>수업 파일 열기</translation>
    </message>
    <message>
        <source>Lesson files (*.toml)</source>
        <translation>수업 파일 (*.toml)</translation>
    </message>
    <message>
        <source>… and {n} more</source>
        <translation>… 외 {n}개</translation>
    </message>
    <message>
        <source>Lesson file not opened</source>
        <translation>수업 파일을 열지 않았습니다</translation>
    </message>
    <message>
        <source>{name} has problems; nothing was changed.</source>
        <translation>{name}에 문제가 있어 아무것도 바꾸지 않았습니다.</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>수업(&amp;L)</translation>
    </message>
    <message>
        <source>Open lesson file…</source>
        <translation>수업 파일 열기…</translation>
    </message>
    <message>
        <source>Leave lesson</source>
        <translation>수업 나가기</translation>
    </message>
    <message>
        <source>Show the lesson panel</source>
        <translation>수업 패널 보기</translation>
    </message>
</context>
<context>
    <name>window.main_window</name>
    <message>
        <source>Attention Explorer</source>
        <translation>Attention Explorer</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>어텐션 헤드</translation>
    </message>
    <message>
        <source>Controls</source>
        <translation>설정</translation>
    </message>
    <message>
        <source>head {head} enlarged: click it or press Esc for all heads</source>
        <translation>헤드 {head} 확대: 다시 클릭하거나 Esc를 누르면 모든 헤드</translation>
    </message>
    <message>
        <source>Preset: {title} — {description}</source>
        <translation>프리셋: {title} — {description}</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>파일(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>보기(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Presets</source>
        <translation>프리셋(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Topics</source>
        <translation>주제(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>도움말(&amp;H)</translation>
    </message>
    <message>
        <source>About Attention Explorer</source>
        <translation>Attention Explorer 정보</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>위치 인코딩</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>학습</translation>
    </message>
    <message>
        <source>(no topics installed)</source>
        <translation>(설치된 주제 없음)</translation>
    </message>
    <message>
        <source>cell values: {mode}</source>
        <translation>칸 값: {mode}</translation>
    </message>
    <message>
        <source>Attention Explorer — multi-head self-attention, live.
Change d_model, heads, seed, scaling, masks and positional encoding and watch every head&apos;s weights update.</source>
        <translation>Attention Explorer — 멀티헤드 셀프 어텐션을 실시간으로.
d_model, 헤드 수, 시드, 스케일링, 마스크, 위치 인코딩을 바꾸며 모든 헤드의 가중치가 바뀌는 모습을 보세요.</translation>
    </message>
</context>
<context>
    <name>window.shortcuts</name>
    <message>
        <source>More heads (next divisor of d_model)</source>
        <translation>헤드 늘리기 (d_model의 다음 약수)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>모델</translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation>수업</translation>
    </message>
    <message>
        <source>Fewer heads</source>
        <translation>헤드 줄이기</translation>
    </message>
    <message>
        <source>Larger d_model</source>
        <translation>d_model 키우기</translation>
    </message>
    <message>
        <source>Smaller d_model</source>
        <translation>d_model 줄이기</translation>
    </message>
    <message>
        <source>Seed + 1</source>
        <translation>시드 + 1</translation>
    </message>
    <message>
        <source>Seed − 1</source>
        <translation>시드 − 1</translation>
    </message>
    <message>
        <source>New random seed</source>
        <translation>새 무작위 시드</translation>
    </message>
    <message>
        <source>Toggle ÷√d_head scaling</source>
        <translation>÷√d_head 스케일링 켜기/끄기</translation>
    </message>
    <message>
        <source>Toggle causal mask</source>
        <translation>인과 마스크 켜기/끄기</translation>
    </message>
    <message>
        <source>Toggle positional encoding</source>
        <translation>위치 인코딩 켜기/끄기</translation>
    </message>
    <message>
        <source>Edit the sentence</source>
        <translation>문장 편집</translation>
    </message>
    <message>
        <source>Enlarge head %1</source>
        <translation>헤드 %1 확대</translation>
    </message>
    <message>
        <source>Back to all heads</source>
        <translation>모든 헤드로 돌아가기</translation>
    </message>
    <message>
        <source>View</source>
        <translation>보기</translation>
    </message>
    <message>
        <source>Cell values: auto → on → off</source>
        <translation>칸 값: 자동 → 켜기 → 끄기</translation>
    </message>
    <message>
        <source>Presentation mode</source>
        <translation>발표 모드</translation>
    </message>
    <message>
        <source>Full screen</source>
        <translation>전체 화면</translation>
    </message>
    <message>
        <source>Show / hide the controls</source>
        <translation>설정 패널 보이기 / 숨기기</translation>
    </message>
    <message>
        <source>Export figure…</source>
        <translation>그림 내보내기…</translation>
    </message>
    <message>
        <source>File</source>
        <translation>파일</translation>
    </message>
    <message>
        <source>Copy figure to the clipboard</source>
        <translation>그림을 클립보드에 복사</translation>
    </message>
    <message>
        <source>KV cache: step forward / back</source>
        <translation>KV 캐시: 한 단계 앞 / 뒤</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 캐시</translation>
    </message>
    <message>
        <source>KV cache: play / pause</source>
        <translation>KV 캐시: 재생 / 일시 정지</translation>
    </message>
    <message>
        <source>KV cache: first / last step</source>
        <translation>KV 캐시: 첫 / 마지막 단계</translation>
    </message>
    <message>
        <source>KV cache: 10 steps forward / back</source>
        <translation>KV 캐시: 10단계 앞 / 뒤</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>단축키</translation>
    </message>
    <message>
        <source>Help</source>
        <translation>도움말</translation>
    </message>
    <message>
        <source>Lesson: next step (clicker)</source>
        <translation>수업: 다음 단계 (클리커)</translation>
    </message>
    <message>
        <source>Lesson: previous step (clicker)</source>
        <translation>수업: 이전 단계 (클리커)</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>끝내기</translation>
    </message>
    <message>
        <source> or </source>
        <translation> 또는 </translation>
    </message>
    <message>
        <source>Enlarge head 0 … 8</source>
        <translation>헤드 0 … 8 확대</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>단축키</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>동작</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>분류</translation>
    </message>
</context>
<context>
    <name>window.training_animation</name>
    <message>
        <source>Replace files?</source>
        <translation>파일을 바꿀까요?</translation>
    </message>
    <message>
        <source>{count} of the animation&apos;s files already exist in {folder} ({names}). Replace them?</source>
        <translation>애니메이션 파일 중 {count}개가 이미 {folder}에 있습니다 ({names}). 새 파일로 바꿀까요?</translation>
    </message>
    <message>
        <source>not exported: {reason}</source>
        <translation>내보내지 못함: {reason}</translation>
    </message>
    <message>
        <source>not exported: the files there are kept</source>
        <translation>내보내지 않음: 기존 파일을 그대로 둡니다</translation>
    </message>
    <message>
        <source>Writing {count} frames to {folder}…</source>
        <translation>프레임 {count}개를 {folder}에 쓰는 중…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>취소</translation>
    </message>
    <message>
        <source>Export animation</source>
        <translation>애니메이션 내보내기</translation>
    </message>
    <message>
        <source>animation export cancelled: nothing was written</source>
        <translation>애니메이션 내보내기를 취소했습니다: 아무것도 쓰지 않았습니다</translation>
    </message>
    <message>
        <source>exported {count} files to {folder}</source>
        <translation>파일 {count}개를 {folder}에 내보냄</translation>
    </message>
    <message>
        <source> (PNG sequence only: Pillow is not installed, no GIF)</source>
        <translation> (PNG 연속 파일만: Pillow가 없어 GIF는 만들지 않음)</translation>
    </message>
</context>
<context>
    <name>window.training_export</name>
    <message>
        <source>nothing to export yet</source>
        <translation>아직 내보낼 것이 없습니다</translation>
    </message>
    <message>
        <source>not exported: {reason}</source>
        <translation>내보내지 못함: {reason}</translation>
    </message>
    <message>
        <source>exported {path}</source>
        <translation>{path}로 내보냄</translation>
    </message>
    <message>
        <source> (PNG sequence only: Pillow is not installed, no GIF)</source>
        <translation> (PNG 연속 파일만: Pillow가 없어 GIF는 만들지 않음)</translation>
    </message>
    <message>
        <source>exported {count} files to {folder}</source>
        <translation>파일 {count}개를 {folder}에 내보냄</translation>
    </message>
    <message>
        <source>Export the shown snapshot</source>
        <translation>보이는 스냅샷 내보내기</translation>
    </message>
    <message>
        <source>Export the heads over training to a folder</source>
        <translation>학습 중 헤드 변화를 폴더로 내보내기</translation>
    </message>
</context>
</TS>
