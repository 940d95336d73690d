import re,sys
txt=open(sys.argv[1]).read()
m=re.search(r'Function : \S*fused_x_kernel'+sys.argv[2]+r'\S*\n(.*?)(?=\n\s*Function :|\Z)',txt,re.S)
body=m.group(1)
ins=[]
for line in body.splitlines():
    mm=re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);',line)
    if mm: ins.append((int(mm.group(1),16),mm.group(2)))
for a,t in ins:
    b=re.search(r'BRA\s.*?(0x[0-9a-f]+)',t)
    if b and int(b.group(1),16)<a:
        tgt=int(b.group(1),16); n=(a-tgt)//16+1
        body=[x for y,x in ins if tgt<=y<=a]
        cnt={k:sum(1 for x in body if k in x) for k in ['LDS','STS','SHFL','FFMA','FMUL','LDGSTS','STG','BAR','MUFU']}
        print(f"loop {a:x}->{tgt:x} {n} instrs {cnt}")
